package io.postlog.consumer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.ReplicationConsumerException;
import io.postlog.consumer.spill.SpillDirectory;
import io.postlog.consumer.spill.SpillLimitExceededException;
import io.postlog.consumer.spill.StreamMessages;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.PgOutputWriter;
import io.postlog.stream.StreamRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The consumer with streaming on, against a {@link FakeServer} that streams in-progress
 * transactions as pgoutput protocol 2 does: delivery at the Stream Commit as protocol 1
 * would have delivered, aborts dropped, a replay passed on lazily behind a slow handler
 * while status goes out, the spill limit failing the consumer before anything of the
 * transaction is acknowledged, and spill files gone after a commit, a reconnect and a
 * stop.
 */
class StreamingConsumerTests {

	private static final String SLOT = "stream_slot";

	private static final int TABLE = FakeServer.RELATION_ID;

	@TempDir
	Path spillRoot;

	private final FakeServer server = new FakeServer();

	private final List<Change> changes = new CopyOnWriteArrayList<>();

	private final Observer observer = new Observer();

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void streamedTransactionIsDeliveredAtItsCommitAsProtocolOneWouldWithAbortsDropped() {
		ReplicationConsumer consumer = start(builder(1024, 1 << 20).changeHandler(this.changes::add));
		await().until(() -> this.server.current() != null);
		StreamRequest request = this.server.lastRequest;
		assertThat(request.plugin()).isEqualTo("pgoutput");
		assertThat(request.options()).containsEntry("proto_version", "2").containsEntry("streaming", "true");
		block(800, true, 800, FakeServer.relation(), insert(1), insert(2));
		block(801, true, 801, FakeServer.relation(), insert(100));
		FakeServer.Tx plain = this.server.commitInserts(50);
		block(800, false, 802, insert(3));
		send(new PgOutputMessage.StreamAbort(800, 802, null, null));
		block(800, false, 800, insert(4));
		send(new PgOutputMessage.StreamAbort(801, 801, null, null));
		PgOutputMessage.StreamCommit commit = commit(800, 0x10_0000);
		send(commit);
		await().until(() -> this.changes.size() == 4);
		assertThat(this.changes).extracting((change) -> change.after().get("id")).containsExactly(50, 1, 2, 4);
		assertThat(this.changes.get(0).commitLsn()).isEqualTo(plain.commitLsn());
		List<Change> streamed = this.changes.subList(1, 4);
		assertThat(streamed).extracting(Change::index).containsExactly(0, 1, 2);
		assertThat(streamed).extracting(Change::id)
			.containsExactly(Change.id(SLOT, commit.commitLsn(), 0), Change.id(SLOT, commit.commitLsn(), 1),
					Change.id(SLOT, commit.commitLsn(), 2));
		assertThat(streamed).allSatisfy((change) -> {
			assertThat(change.xid()).isEqualTo(800);
			assertThat(change.commitLsn()).isEqualTo(commit.commitLsn());
			assertThat(change.commitTime()).isEqualTo(commit.commitTime());
		});
		await().until(() -> consumer.ackedLsn().equals(commit.endLsn()));
		await().until(() -> this.server.confirmed().equals(commit.endLsn()));
		assertThat(consumer.spilledBytesTotal()).isZero();
	}

	@Test
	void spilledTransactionIsReadBackInOrderAndItsFilesGoWithItsCommit() throws IOException {
		ReplicationConsumer consumer = start(builder(0, 1 << 24).changeHandler(this.changes::add));
		await().until(() -> this.server.current() != null);
		streamInserts(900, 1, 600, 4);
		await().until(() -> consumer.spilledBytes() > 0);
		assertThat(spillFiles()).isNotEmpty();
		send(commit(900, 0x20_0000));
		await().until(() -> this.changes.size() == 600);
		assertThat(this.changes).extracting((change) -> change.after().get("id"))
			.containsExactlyElementsOf(IntStream.rangeClosed(1, 600).boxed().toList());
		assertThat(this.changes).extracting(Change::index)
			.containsExactlyElementsOf(IntStream.range(0, 600).boxed().toList());
		await().until(() -> consumer.spilledBytes() == 0);
		long total = consumer.spilledBytesTotal();
		assertThat(total).isPositive();
		assertThat(spillFiles()).isEmpty();
		assertThat(this.observer.spilled).anySatisfy((report) -> assertThat(report[0]).isPositive());
		await().until(() -> this.observer.last()[0] == 0 && this.observer.last()[1] == total);
		consumer.stop();
		assertThat(consumer.spilledBytesTotal()).isEqualTo(total);
		assertThat(directories()).isEmpty();
	}

	@Test
	void replayBehindABlockedHandlerIsPassedOnLazilyWhileStatusKeepsGoingOut() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		ReplicationConsumer consumer = start(builder(0, 1 << 24).readAhead(4, 1 << 20)
			.statusInterval(Duration.ofMillis(50))
			.changeHandler((change) -> {
				entered.countDown();
				release.await();
				this.changes.add(change);
			}));
		await().until(() -> this.server.current() != null);
		streamInserts(910, 1, 2000, 8);
		send(commit(910, 0x30_0000));
		assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
		FakeServer.Stream stream = this.server.current();
		int statusBefore = stream.statusUpdates.get();
		await().until(() -> stream.statusUpdates.get() >= statusBefore + 5);
		assertThat(consumer.spilledBytes()).as("the spill file of a replay not passed on yet").isPositive();
		assertThat(this.server.opens.get()).isEqualTo(1);
		release.countDown();
		await().until(() -> this.changes.size() == 2000);
		await().until(() -> consumer.spilledBytes() == 0);
		assertThat(this.changes).extracting(Change::index)
			.containsExactlyElementsOf(IntStream.range(0, 2000).boxed().toList());
	}

	@Test
	void transactionPastTheSpillLimitFailsTheConsumerNamingTheLimitAndNothingOfItIsAcknowledged() throws IOException {
		ReplicationConsumer consumer = start(builder(0, 4000).changeHandler(this.changes::add));
		await().until(() -> this.server.current() != null);
		FakeServer.Tx before = this.server.commitInserts(1);
		await().until(() -> this.server.confirmed().equals(before.endLsn()));
		streamInserts(920, 10, 500, 5);
		await().until(() -> consumer.state() == ConsumerState.FAILED);
		assertThat(this.observer.failure).isInstanceOf(SpillLimitExceededException.class)
			.hasMessageContaining("limit of 4000 bytes")
			.hasMessageContaining("maxSpill")
			.hasMessageContaining("transaction 920");
		assertThat(((SpillLimitExceededException) this.observer.failure).limit()).isEqualTo(4000);
		assertThat(this.server.opens.get()).as("fatal: no reconnect").isEqualTo(1);
		assertThat(this.changes).extracting((change) -> change.after().get("id")).containsExactly(1);
		assertThat(consumer.ackedLsn()).isEqualTo(before.endLsn());
		assertThat(this.server.confirmed()).isEqualTo(before.endLsn());
		assertThat(spillFiles()).isEmpty();
	}

	@Test
	void openTransactionStreamedAgainAfterAReconnectIsDeliveredOnceAndTheOldSpillFilesAreGone() throws IOException {
		ReplicationConsumer consumer = start(
				builder(0, 1 << 24).retryPolicy(new RetryPolicy(Duration.ofMillis(20), 2, Duration.ofMillis(100), 3))
					.changeHandler(this.changes::add));
		await().until(() -> this.server.current() != null);
		FakeServer.Stream first = this.server.current();
		streamInserts(930, 1, 300, 3);
		await().until(() -> consumer.spilledBytes() > 0);
		this.server.dropConnection();
		await().until(() -> this.server.opens.get() == 2 && this.server.current() != first);
		await().until(() -> consumer.spilledBytes() == 0);
		assertThat(spillFiles()).isEmpty();
		streamInserts(930, 1, 300, 3);
		send(commit(930, 0x40_0000));
		await().until(() -> this.changes.size() == 300);
		assertThat(this.changes).extracting(Change::index)
			.containsExactlyElementsOf(IntStream.range(0, 300).boxed().toList());
		assertThat(consumer.spilledBytesTotal()).isGreaterThan(consumer.spilledBytes());
		await().until(() -> consumer.ackedLsn().equals(Lsn.of(0x40_0000 + 48)));
	}

	@Test
	void streamingIsRefusedWithInvalidOptionsAtBuild() {
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> builder(-1, 10).changeHandler(this.changes::add).build())
			.withMessageContaining("Invalid consumer configuration: streaming")
			.withMessageContaining("memory");
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> builder(10, -1).changeHandler(this.changes::add).build())
			.withMessageContaining("maxSpill");
	}

	private ReplicationConsumer.Builder builder(long memory, long maxSpill) {
		return ReplicationConsumer.builder()
			.streamFactory(this.server)
			.slotName(SLOT)
			.listener(this.observer)
			.streaming(memory, this.spillRoot, maxSpill);
	}

	private ReplicationConsumer start(ReplicationConsumer.Builder builder) {
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		consumer.start();
		return consumer;
	}

	/**
	 * Streams inserts {@code from} to {@code to} of one transaction in several blocks.
	 */
	private void streamInserts(long xid, int from, int to, int blocks) {
		int per = (to - from + 1 + blocks - 1) / blocks;
		boolean first = true;
		for (int id = from; id <= to; id += per) {
			List<PgOutputMessage> messages = new ArrayList<>();
			if (first) {
				messages.add(FakeServer.relation());
			}
			for (int each = id; each < Math.min(to + 1, id + per); each++) {
				messages.add(insert(each));
			}
			block(xid, first, xid, messages.toArray(PgOutputMessage[]::new));
			first = false;
		}
	}

	private void block(long xid, boolean first, long recordXid, PgOutputMessage... messages) {
		send(new PgOutputMessage.StreamStart(xid, first));
		for (PgOutputMessage message : messages) {
			ByteBuffer payload = StreamMessages.inBlock(recordXid, message);
			byte[] bytes = new byte[payload.remaining()];
			payload.get(bytes);
			this.server.sendRaw(bytes);
		}
		send(new PgOutputMessage.StreamStop());
	}

	private void send(PgOutputMessage message) {
		this.server.sendRaw(PgOutputWriter.write(message));
	}

	private static PgOutputMessage.Insert insert(int id) {
		return new PgOutputMessage.Insert(null, TABLE, FakeServer.row(id, "note " + id));
	}

	private static PgOutputMessage.StreamCommit commit(long xid, long commitLsn) {
		return new PgOutputMessage.StreamCommit(xid, 0, Lsn.of(commitLsn), Lsn.of(commitLsn + 48), FakeServer.TIME);
	}

	private List<Path> spillFiles() throws IOException {
		try (Stream<Path> files = Files.walk(this.spillRoot)) {
			return files.filter((file) -> file.toString().endsWith(SpillDirectory.SUFFIX)).toList();
		}
	}

	private List<Path> directories() throws IOException {
		try (Stream<Path> files = Files.list(this.spillRoot)) {
			return files.toList();
		}
	}

	static final class Observer implements ConsumerListener {

		final List<long[]> spilled = new CopyOnWriteArrayList<>();

		volatile @Nullable Throwable failure;

		@Override
		public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
			if (current == ConsumerState.FAILED) {
				this.failure = cause;
			}
		}

		@Override
		public void spilled(long bytes, long totalBytes) {
			this.spilled.add(new long[] { bytes, totalBytes });
		}

		long[] last() {
			return this.spilled.isEmpty() ? new long[] { -1, -1 } : this.spilled.get(this.spilled.size() - 1);
		}

	}

}
