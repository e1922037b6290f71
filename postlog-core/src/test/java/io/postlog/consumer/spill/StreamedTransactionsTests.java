package io.postlog.consumer.spill;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.postlog.Lsn;
import io.postlog.ReplicationConsumerException;
import io.postlog.pgoutput.PgOutputDecodingException;
import io.postlog.pgoutput.PgOutputMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.postlog.consumer.spill.StreamMessages.abort;
import static io.postlog.consumer.spill.StreamMessages.asProtocolOne;
import static io.postlog.consumer.spill.StreamMessages.block;
import static io.postlog.consumer.spill.StreamMessages.commit;
import static io.postlog.consumer.spill.StreamMessages.drain;
import static io.postlog.consumer.spill.StreamMessages.inBlock;
import static io.postlog.consumer.spill.StreamMessages.insert;
import static io.postlog.consumer.spill.StreamMessages.relation;
import static io.postlog.consumer.spill.StreamMessages.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class StreamedTransactionsTests {

	private static final long MEMORY = 1 << 20;

	private static final long MAX_SPILL = 1 << 24;

	@TempDir
	Path root;

	private final List<StreamedTransactions> opened = new ArrayList<>();

	@AfterEach
	void closeAll() {
		this.opened.forEach(StreamedTransactions::close);
	}

	private StreamedTransactions streams(long memory, long maxSpill) {
		StreamedTransactions streams = new StreamedTransactions(new StreamingOptions(memory, this.root, maxSpill),
				"test_slot");
		this.opened.add(streams);
		return streams;
	}

	private static PgOutputMessage[] inserts(int from, int count) {
		PgOutputMessage[] inserts = new PgOutputMessage[count];
		for (int i = 0; i < count; i++) {
			inserts[i] = insert(from + i, "row " + (from + i));
		}
		return inserts;
	}

	private static PgOutputMessage[] concat(PgOutputMessage[]... parts) {
		return Stream.of(parts).flatMap(Stream::of).toArray(PgOutputMessage[]::new);
	}

	@Test
	void commitReplaysBeginThenTheMessagesWithoutTheirXidThenCommit() {
		StreamedTransactions streams = streams(MEMORY, MAX_SPILL);
		PgOutputMessage origin = new PgOutputMessage.Origin(Lsn.of(77), "upstream");
		block(streams, 700, true, 700, relation(), insert(1, "a"));
		streams.start(start(700, false));
		streams.feed(inBlock(700, insert(2, "b")));
		streams.feed(inBlock(700, origin));
		streams.stop();
		PgOutputMessage.StreamCommit commit = commit(700, 0x1000);
		List<PgOutputMessage> replayed = drain(streams.commit(commit));
		assertThat(replayed).isEqualTo(asProtocolOne(commit, relation(), insert(1, "a"), insert(2, "b"), origin));
		assertThat(streams.spilledBytes()).isZero();
		assertThat(streams.memoryBytes()).isZero();
		assertThat(streams.hasOpenTransactions()).isFalse();
	}

	@Test
	void transactionWithNothingBufferedReplaysAsBeginAndCommit() {
		StreamedTransactions streams = streams(MEMORY, MAX_SPILL);
		block(streams, 5, true, 5);
		PgOutputMessage.StreamCommit commit = commit(5, 0x2000);
		assertThat(drain(streams.commit(commit))).isEqualTo(asProtocolOne(commit));
	}

	@Test
	void messagesPastTheMemoryBudgetSpillAndReplayInArrivalOrder() {
		StreamedTransactions streams = streams(4096, MAX_SPILL);
		PgOutputMessage[] rows = inserts(1, 2000);
		block(streams, 800, true, 800, concat(new PgOutputMessage[] { relation() }, rows));
		assertThat(streams.memoryBytes()).isPositive().isLessThanOrEqualTo(4096);
		assertThat(streams.spilledBytes()).isPositive();
		assertThat(streams.spilledBytesTotal()).isEqualTo(streams.spilledBytes());
		assertThat(spillFiles()).hasSize(1);
		PgOutputMessage.StreamCommit commit = commit(800, 0x3000);
		assertThat(drain(streams.commit(commit)))
			.isEqualTo(asProtocolOne(commit, concat(new PgOutputMessage[] { relation() }, rows)));
		assertThat(streams.spilledBytes()).isZero();
		assertThat(streams.spilledBytesTotal()).isPositive();
		assertThat(streams.memoryBytes()).isZero();
		assertThat(spillFiles()).isEmpty();
	}

	@Test
	void zeroMemoryBudgetSpillsEverything() {
		StreamedTransactions streams = streams(0, MAX_SPILL);
		block(streams, 801, true, 801, relation(), insert(1, "a"));
		assertThat(streams.memoryBytes()).isZero();
		PgOutputMessage.StreamCommit commit = commit(801, 0x3100);
		assertThat(drain(streams.commit(commit))).isEqualTo(asProtocolOne(commit, relation(), insert(1, "a")));
	}

	@Test
	void messageLargerThanTheSpillBuffersPassesWhole() {
		StreamedTransactions streams = streams(0, MAX_SPILL);
		String large = "x".repeat(3 * StreamStorage.BUFFER_BYTES);
		block(streams, 802, true, 802, relation(), insert(1, "a"), insert(2, large), insert(3, "c"));
		PgOutputMessage.StreamCommit commit = commit(802, 0x3200);
		assertThat(drain(streams.commit(commit)))
			.isEqualTo(asProtocolOne(commit, relation(), insert(1, "a"), insert(2, large), insert(3, "c")));
	}

	@Test
	void interleavedTransactionsEachReplayTheirOwnMessagesInTheirCommitOrder() {
		StreamedTransactions streams = streams(2048, MAX_SPILL);
		block(streams, 10, true, 10, relation(), insert(1, "t10"));
		block(streams, 11, true, 11, relation(), insert(100, "t11"));
		block(streams, 12, true, 12, inserts(200, 50));
		block(streams, 10, false, 10, inserts(2, 50));
		block(streams, 11, false, 11, inserts(101, 50));
		block(streams, 12, false, 12, inserts(250, 50));
		PgOutputMessage.StreamCommit second = commit(11, 0x5000);
		assertThat(drain(streams.commit(second))).isEqualTo(asProtocolOne(second,
				concat(new PgOutputMessage[] { relation(), insert(100, "t11") }, inserts(101, 50))));
		streams.abort(abort(12, 12));
		PgOutputMessage.StreamCommit first = commit(10, 0x6000);
		assertThat(drain(streams.commit(first))).isEqualTo(
				asProtocolOne(first, concat(new PgOutputMessage[] { relation(), insert(1, "t10") }, inserts(2, 50))));
		assertThat(streams.spilledBytes()).isZero();
		assertThat(streams.memoryBytes()).isZero();
		assertThat(spillFiles()).isEmpty();
	}

	@Test
	void abortOfATransactionDiscardsItAndRemovesItsSpillFile() {
		StreamedTransactions streams = streams(0, MAX_SPILL);
		block(streams, 20, true, 20, relation(), insert(1, "a"));
		assertThat(spillFiles()).hasSize(1);
		streams.abort(abort(20, 20));
		assertThat(spillFiles()).isEmpty();
		assertThat(streams.spilledBytes()).isZero();
		assertThat(streams.hasOpenTransactions()).isFalse();
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> streams.commit(commit(20, 0x7000)))
			.withMessageContaining("transaction 20");
	}

	@Test
	void abortOfAnUnknownTransactionDropsNothing() {
		StreamedTransactions streams = streams(MEMORY, MAX_SPILL);
		block(streams, 30, true, 30, relation(), insert(1, "a"));
		streams.abort(abort(31, 31));
		streams.abort(abort(31, 32));
		streams.abort(abort(30, 99));
		PgOutputMessage.StreamCommit commit = commit(30, 0x7100);
		assertThat(drain(streams.commit(commit))).isEqualTo(asProtocolOne(commit, relation(), insert(1, "a")));
	}

	@Test
	void subtransactionAbortInMemoryDropsExactlyItsChangesAndKeepsItsSchemaMessages() {
		subtransactionAbortDropsExactlyItsChanges(MEMORY);
	}

	@Test
	void subtransactionAbortInSpillDropsExactlyItsChangesAndKeepsItsSchemaMessages() {
		subtransactionAbortDropsExactlyItsChanges(0);
	}

	@Test
	void subtransactionAbortAcrossTheMemoryAndSpillPartsDropsExactlyItsChanges() {
		subtransactionAbortDropsExactlyItsChanges(1024);
	}

	private void subtransactionAbortDropsExactlyItsChanges(long memory) {
		StreamedTransactions streams = streams(memory, MAX_SPILL);
		block(streams, 40, true, 40, inserts(1, 10));
		block(streams, 40, false, 41, concat(new PgOutputMessage[] { relation() }, inserts(100, 30)));
		long memoryBefore = streams.memoryBytes();
		long spilledBefore = streams.spilledBytes();
		block(streams, 40, false, 42, inserts(200, 30));
		streams.abort(abort(40, 42));
		assertThat(streams.memoryBytes()).isEqualTo(memoryBefore);
		assertThat(streams.spilledBytes()).isEqualTo(spilledBefore);
		block(streams, 40, false, 43, inserts(300, 5));
		streams.abort(abort(40, 41));
		block(streams, 40, false, 40, inserts(11, 5));
		PgOutputMessage.StreamCommit commit = commit(40, 0x8000);
		assertThat(drain(streams.commit(commit))).isEqualTo(asProtocolOne(commit,
				concat(inserts(1, 10), new PgOutputMessage[] { relation() }, inserts(300, 5), inserts(11, 5))));
	}

	@Test
	void nestedSubtransactionAbortsInnermostFirstGiveBackTheirChangesAndKeepTheirSchemaMessages() {
		StreamedTransactions streams = streams(0, MAX_SPILL);
		block(streams, 50, true, 50, relation(), insert(1, "kept"));
		long spilledBefore = streams.spilledBytes();
		PgOutputMessage.Relation other = relation(16386, "others");
		block(streams, 50, false, 51, inserts(100, 20));
		block(streams, 50, false, 52, concat(inserts(200, 10), new PgOutputMessage[] { other }, inserts(210, 10)));
		PgOutputMessage.Relation third = relation(16387, "thirds");
		block(streams, 50, false, 51, concat(inserts(300, 10), new PgOutputMessage[] { third }, inserts(310, 10)));
		streams.abort(abort(50, 52));
		streams.abort(abort(50, 51));
		assertThat(streams.spilledBytes())
			.isEqualTo(spilledBefore + spilledRecordBytes(other) + spilledRecordBytes(third));
		block(streams, 50, false, 53, insert(2, "after"));
		PgOutputMessage.StreamCommit commit = commit(50, 0x9000);
		assertThat(drain(streams.commit(commit)))
			.isEqualTo(asProtocolOne(commit, relation(), insert(1, "kept"), other, third, insert(2, "after")));
	}

	private static long spilledRecordBytes(PgOutputMessage message) {
		return SpillFile.HEADER_BYTES + 4 + io.postlog.pgoutput.PgOutputWriter.write(message).length;
	}

	@Test
	void relationFirstSentInARolledBackSubtransactionStaysForTheChangesAfterIt() {
		StreamedTransactions streams = streams(0, MAX_SPILL);
		block(streams, 60, true, 61, relation(), insert(1, "rolled back"));
		streams.abort(abort(60, 61));
		block(streams, 60, false, 60, insert(2, "kept"));
		PgOutputMessage.StreamCommit commit = commit(60, 0xA000);
		assertThat(drain(streams.commit(commit))).isEqualTo(asProtocolOne(commit, relation(), insert(2, "kept")));
	}

	@Test
	void abortOfASubtransactionBeforeLaterChangesSkipsOnlyItsOwn() {
		StreamedTransactions streams = streams(256, MAX_SPILL);
		block(streams, 70, true, 71, inserts(1, 20));
		block(streams, 70, false, 70, inserts(100, 20));
		streams.abort(abort(70, 71));
		PgOutputMessage.StreamCommit commit = commit(70, 0xB000);
		assertThat(drain(streams.commit(commit))).isEqualTo(asProtocolOne(commit, inserts(100, 20)));
	}

	@Test
	void subtransactionsPastTheRememberedRunsAreStillSkipped() {
		StreamedTransactions streams = streams(0, MAX_SPILL);
		int subtransactions = StreamedTransaction.RUN_LIMIT + 10;
		streams.start(start(80, true));
		for (int i = 0; i < subtransactions; i++) {
			streams.feed(inBlock(1000 + i, insert(i, "sub")));
			streams.feed(inBlock(80, insert(-i, "top")));
		}
		streams.stop();
		for (int i = 0; i < subtransactions; i += 2) {
			streams.abort(abort(80, 1000 + i));
		}
		List<PgOutputMessage> expected = new ArrayList<>();
		for (int i = 0; i < subtransactions; i++) {
			if (i % 2 == 1) {
				expected.add(insert(i, "sub"));
			}
			expected.add(insert(-i, "top"));
		}
		PgOutputMessage.StreamCommit commit = commit(80, 0xC000);
		assertThat(drain(streams.commit(commit)))
			.isEqualTo(asProtocolOne(commit, expected.toArray(PgOutputMessage[]::new)));
	}

	@Test
	void spillingPastTheLimitFailsNamingTheLimitAndTheTransactionAndEverythingAfterFails() {
		StreamedTransactions streams = streams(0, 1000);
		streams.start(start(90, true));
		streams.feed(inBlock(90, relation()));
		assertThatExceptionOfType(SpillLimitExceededException.class).isThrownBy(() -> {
			for (int i = 0; i < 1000; i++) {
				streams.feed(inBlock(90, insert(i, "row")));
			}
		}).satisfies((ex) -> {
			assertThat(ex.limit()).isEqualTo(1000);
			assertThat(ex.xid()).isEqualTo(90);
			assertThat(ex).hasMessageContaining("1000 bytes").hasMessageContaining("transaction 90");
		});
		assertThat(streams.spilledBytes()).isLessThanOrEqualTo(1000);
		assertThatExceptionOfType(ReplicationConsumerException.class).isThrownBy(streams::stop)
			.withCauseInstanceOf(SpillLimitExceededException.class);
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> streams.commit(commit(90, 0xD000)))
			.withCauseInstanceOf(SpillLimitExceededException.class);
		streams.close();
		assertThat(spillFiles()).isEmpty();
		assertThat(this.root).isEmptyDirectory();
	}

	@Test
	void zeroSpillLimitAllowsNoSpilling() {
		StreamedTransactions streams = streams(0, 0);
		streams.start(start(91, true));
		assertThatExceptionOfType(SpillLimitExceededException.class)
			.isThrownBy(() -> streams.feed(inBlock(91, insert(1, "a"))));
	}

	@Test
	void closeRemovesOpenTransactionsOpenReplaysAndTheDirectory() {
		StreamedTransactions streams = streams(0, MAX_SPILL);
		block(streams, 100, true, 100, relation(), insert(1, "a"));
		block(streams, 101, true, 101, relation(), insert(2, "b"));
		Replay replay = streams.commit(commit(101, 0xE000));
		assertThat(replay.hasNext()).isTrue();
		assertThat(spillFiles()).hasSize(2);
		streams.close();
		streams.close();
		assertThat(streams.spilledBytes()).isZero();
		assertThat(this.root).isEmptyDirectory();
	}

	@Test
	void replayClosedBeforeItsEndGivesBackMemoryAndRemovesItsFile() {
		StreamedTransactions streams = streams(1024, MAX_SPILL);
		block(streams, 110, true, 110, inserts(1, 100));
		Replay replay = streams.commit(commit(110, 0xF000));
		replay.next();
		replay.next();
		replay.close();
		assertThat(streams.memoryBytes()).isZero();
		assertThat(streams.spilledBytes()).isZero();
		assertThat(spillFiles()).isEmpty();
		assertThat(replay.hasNext()).isFalse();
	}

	@Test
	void spillFilesAndTheirDirectoryAreOwnerOnly() throws IOException {
		Path nested = this.root.resolve("created").resolve("here");
		StreamedTransactions streams = new StreamedTransactions(new StreamingOptions(0, nested, MAX_SPILL), "perm");
		this.opened.add(streams);
		block(streams, 120, true, 120, relation(), insert(1, "a"));
		Path directory = streams.spillDirectory();
		assertThat(directory).isNotNull();
		assertThat(directory.getParent()).isEqualTo(nested);
		assertThat(permissions(nested)).isEqualTo("rwx------");
		assertThat(permissions(nested.getParent())).isEqualTo("rwx------");
		assertThat(permissions(directory)).isEqualTo("rwx------");
		try (Stream<Path> files = Files.list(directory)) {
			assertThat(files).isNotEmpty().allSatisfy((file) -> assertThat(permissions(file)).isEqualTo("rw-------"));
		}
	}

	private static String permissions(Path path) {
		try {
			return java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void truncatedSpillFileGivesATypedErrorNamingTheFile() throws IOException {
		StreamedTransactions streams = streams(0, MAX_SPILL);
		block(streams, 130, true, 130, inserts(1, 20));
		Path file = spillFiles().get(0);
		try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
			channel.truncate(channel.size() - 3);
		}
		Replay replay = streams.commit(commit(130, 0x10000));
		assertThatExceptionOfType(SpillFileException.class).isThrownBy(() -> drain(replay))
			.withMessageContaining(file.toString())
			.withMessageContaining("transaction 130")
			.withMessageContaining("truncated");
		assertThat(spillFiles()).isEmpty();
		assertThatExceptionOfType(ReplicationConsumerException.class).isThrownBy(() -> streams.start(start(131, true)))
			.withCauseInstanceOf(SpillFileException.class);
	}

	@Test
	void corruptSpillFileGivesATypedErrorWithoutTheValue() throws IOException {
		StreamedTransactions streams = streams(0, MAX_SPILL);
		block(streams, 140, true, 140, insert(1, "secret-value-1"), insert(2, "secret-value-2"));
		Path file = spillFiles().get(0);
		byte[] bytes = Files.readAllBytes(file);
		int last = bytes.length - 1;
		bytes[last] ^= 0x01;
		Files.write(file, bytes);
		Replay replay = streams.commit(commit(140, 0x11000));
		assertThatExceptionOfType(SpillFileException.class).isThrownBy(() -> drain(replay))
			.withMessageContaining(file.toString())
			.withMessageContaining("checksum")
			.satisfies((ex) -> assertThat(ex.getMessage()).doesNotContain("secret"));
	}

	@Test
	void corruptRecordLengthGivesATypedError() throws IOException {
		StreamedTransactions streams = streams(0, MAX_SPILL);
		block(streams, 150, true, 150, insert(1, "a"), insert(2, "b"));
		Path file = spillFiles().get(0);
		try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
			channel.write(ByteBuffer.allocate(4).putInt(0, Integer.MAX_VALUE), 0);
		}
		Replay replay = streams.commit(commit(150, 0x12000));
		assertThatExceptionOfType(SpillFileException.class).isThrownBy(() -> drain(replay))
			.withMessageContaining("corrupt at offset 0");
	}

	@Test
	void streamProtocolViolationsAreTypedErrors() {
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> streams(MEMORY, MAX_SPILL).feed(inBlock(1, insert(1, "a"))));
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> streams(MEMORY, MAX_SPILL).start(start(1, false)))
			.withMessageContaining("first block");
		assertThatExceptionOfType(ReplicationConsumerException.class).isThrownBy(() -> {
			StreamedTransactions streams = streams(MEMORY, MAX_SPILL);
			block(streams, 1, true, 1);
			streams.start(start(1, true));
		}).withMessageContaining("started before");
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> streams(MEMORY, MAX_SPILL).commit(commit(1, 0x100)))
			.withMessageContaining("never started");
		assertThatExceptionOfType(ReplicationConsumerException.class).isThrownBy(() -> {
			StreamedTransactions streams = streams(MEMORY, MAX_SPILL);
			streams.start(start(1, true));
			streams.start(start(2, true));
		}).withMessageContaining("inside the block");
		assertThatExceptionOfType(PgOutputDecodingException.class).isThrownBy(() -> {
			StreamedTransactions streams = streams(MEMORY, MAX_SPILL);
			streams.start(start(1, true));
			streams.feed(ByteBuffer.wrap(new byte[] { 'c', 0, 0 }));
		}).withMessageContaining("does not belong");
		assertThatExceptionOfType(PgOutputDecodingException.class).isThrownBy(() -> {
			StreamedTransactions streams = streams(MEMORY, MAX_SPILL);
			streams.start(start(1, true));
			streams.feed(ByteBuffer.wrap(new byte[] { 'I', 0, 0 }));
		}).withMessageContaining("cut short");
	}

	@Test
	void feedLeavesThePayloadUnchanged() {
		StreamedTransactions streams = streams(0, MAX_SPILL);
		streams.start(start(160, true));
		ByteBuffer payload = inBlock(160, insert(1, "a"));
		int limit = payload.limit();
		streams.feed(payload);
		assertThat(payload.position()).isZero();
		assertThat(payload.limit()).isEqualTo(limit);
		assertThat(StreamedTransactions.isStreamStop(ByteBuffer.wrap(new byte[] { 'E' }))).isTrue();
		assertThat(StreamedTransactions.isStreamStop(payload)).isFalse();
	}

	@Test
	void beginAndCommitCarryTheStreamCommitsTimeToTheMicrosecond() {
		PgOutputMessage.StreamCommit commit = new PgOutputMessage.StreamCommit(1, 0, Lsn.of(10), Lsn.of(20),
				java.time.Instant.parse("1999-12-31T23:59:59.999999Z"));
		assertThat(io.postlog.pgoutput.PgOutputDecoder.decode(Replay.begin(commit)))
			.isEqualTo(new PgOutputMessage.Begin(Lsn.of(10), commit.commitTime(), 1));
		assertThat(io.postlog.pgoutput.PgOutputDecoder.decode(Replay.commit(commit)))
			.isEqualTo(new PgOutputMessage.Commit(0, Lsn.of(10), Lsn.of(20), commit.commitTime()));
	}

	private List<Path> spillFiles() {
		try (Stream<Path> files = Files.walk(this.root)) {
			return files.filter((file) -> file.getFileName().toString().endsWith(SpillDirectory.SUFFIX)).toList();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
