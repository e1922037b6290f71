package io.postlog.pgoutput;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import io.postlog.Lsn;
import io.postlog.pgoutput.Fixtures.Fixture;
import io.postlog.pgoutput.PgOutputMessage.Begin;
import io.postlog.pgoutput.PgOutputMessage.BeginPrepare;
import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.pgoutput.PgOutputMessage.Commit;
import io.postlog.pgoutput.PgOutputMessage.CommitPrepared;
import io.postlog.pgoutput.PgOutputMessage.Delete;
import io.postlog.pgoutput.PgOutputMessage.Insert;
import io.postlog.pgoutput.PgOutputMessage.Message;
import io.postlog.pgoutput.PgOutputMessage.Origin;
import io.postlog.pgoutput.PgOutputMessage.Prepare;
import io.postlog.pgoutput.PgOutputMessage.Relation;
import io.postlog.pgoutput.PgOutputMessage.RollbackPrepared;
import io.postlog.pgoutput.PgOutputMessage.StreamAbort;
import io.postlog.pgoutput.PgOutputMessage.StreamCommit;
import io.postlog.pgoutput.PgOutputMessage.StreamPrepare;
import io.postlog.pgoutput.PgOutputMessage.StreamStart;
import io.postlog.pgoutput.PgOutputMessage.StreamStop;
import io.postlog.pgoutput.PgOutputMessage.Truncate;
import io.postlog.pgoutput.PgOutputMessage.Type;
import io.postlog.pgoutput.PgOutputMessage.Update;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class PgOutputDecoderTests {

	private static final int ITEMS = 16396;

	private static final int FULL_ITEMS = 16403;

	private static final int MOOD = 16386;

	private static final TupleValue NULL = TupleValue.NULL;

	@Test
	void decodeBeginAndCommitOfOneTransaction() {
		assertThat(decode("pg17/begin"))
			.isEqualTo(new Begin(lsn("0/19989C8"), time("2026-11-29T15:12:49.904701Z"), 778));
		assertThat(decode("pg17/commit"))
			.isEqualTo(new Commit(0, lsn("0/19989C8"), lsn("0/19989F8"), time("2026-11-29T15:12:49.904701Z")));
		assertThat(decode("pg12/begin"))
			.isEqualTo(new Begin(lsn("0/1666878"), time("2026-11-29T15:15:50.037313Z"), 510));
	}

	@Test
	void decodeRelationWithKeyColumnAndCustomType() {
		Relation expected = new Relation(null, ITEMS, "public", "items", 'd',
				List.of(new Column(1, "id", 20, -1), new Column(0, "name", 25, -1), new Column(0, "qty", 23, -1),
						new Column(0, "mood", MOOD, -1), new Column(0, "note", 25, -1)));
		assertThat(decode("pg17/relation")).isEqualTo(expected);
		assertThat(decode("pg14/relation")).isEqualTo(expected);
		assertThat(decode("pg12/relation")).isEqualTo(expected);
	}

	@Test
	void decodeRelationWithReplicaIdentityFull() {
		assertThat(decode("pg17/relation-full")).isEqualTo(new Relation(null, FULL_ITEMS, "public", "full_items", 'f',
				List.of(new Column(1, "id", 23, -1), new Column(1, "name", 25, -1))));
	}

	@Test
	void decodeTypeOfEnumAndOfDomain() {
		assertThat(decode("pg17/type")).isEqualTo(new Type(null, MOOD, "public", "mood"));
		assertThat(decode("pg17/values-type-domain")).isEqualTo(new Type(null, 16394, "", "int4"));
	}

	@Test
	void decodeInsertWithTextValuesAndNull() {
		assertThat(decode("pg17/insert-text"))
			.isEqualTo(new Insert(null, ITEMS, tuple(text("1"), text("apple"), text("3"), text("happy"), NULL)));
		assertThat(decode("pg12/insert-text")).isEqualTo(decode("pg17/insert-text"));
	}

	@Test
	void decodeInsertWithBinaryValues() {
		assertThat(decode("pg17/insert-binary")).isEqualTo(new Insert(null, ITEMS,
				tuple(binary("000000000000000a"), binary("70656172"), binary("00000005"), binary("736164"), NULL)));
	}

	@Test
	void decodeUpdateWithoutOldImageReturnsOnlyNewTuple() {
		assertThat(decode("pg17/update-new")).isEqualTo(
				new Update(null, ITEMS, null, null, tuple(text("1"), text("apple"), text("4"), text("happy"), NULL)));
	}

	@Test
	void decodeUpdateWhenKeyChangedReturnsKeyTuple() {
		assertThat(decode("pg17/update-key"))
			.isEqualTo(new Update(null, ITEMS, tuple(text("1"), NULL, NULL, NULL, NULL), null,
					tuple(text("2"), text("apple"), text("4"), text("happy"), NULL)));
		assertThat(decode("pg14/update-key-binary"))
			.isEqualTo(new Update(null, ITEMS, tuple(binary("000000000000000a"), NULL, NULL, NULL, NULL), null,
					tuple(binary("000000000000000b"), binary("70656172"), binary("00000005"), binary("736164"), NULL)));
	}

	@Test
	void decodeUpdateUnderReplicaIdentityFullReturnsOldTuple() {
		assertThat(decode("pg17/update-old"))
			.isEqualTo(new Update(null, FULL_ITEMS, null, tuple(text("1"), text("a")), tuple(text("1"), text("b"))));
		assertThat(decode("pg17/update-old-binary")).isEqualTo(new Update(null, FULL_ITEMS, null,
				tuple(binary("00000002"), binary("63")), tuple(binary("00000002"), binary("64"))));
	}

	@Test
	void decodeUpdateOfRowWithToastedColumnMarksItUnchanged() {
		assertThat(decode("pg17/update-toast")).isEqualTo(new Update(null, ITEMS, null, null,
				tuple(text("3"), text("big"), text("2"), text("ok"), TupleValue.UNCHANGED_TOAST)));
	}

	@Test
	void decodeDeleteWithKeyTuple() {
		assertThat(decode("pg17/delete-key"))
			.isEqualTo(new Delete(null, ITEMS, tuple(text("2"), NULL, NULL, NULL, NULL), null));
	}

	@Test
	void decodeDeleteWithOldTuple() {
		assertThat(decode("pg17/delete-old"))
			.isEqualTo(new Delete(null, FULL_ITEMS, null, tuple(text("1"), text("b"))));
		assertThat(decode("pg14/delete-old-binary"))
			.isEqualTo(new Delete(null, FULL_ITEMS, null, tuple(binary("00000002"), binary("64"))));
	}

	@Test
	void decodeTruncateWithoutAndWithOptions() {
		assertThat(decode("pg17/truncate")).isEqualTo(new Truncate(null, 0, List.of(16442)));
		assertThat(decode("pg17/truncate-cascade-restart")).isEqualTo(new Truncate(null, 3, List.of(16408, 16413)));
		assertThat(decode("pg12/truncate-cascade-restart")).isEqualTo(new Truncate(null, 3, List.of(16410, 16415)));
	}

	@Test
	void decodeOrigin() {
		assertThat(decode("pg17/origin")).isEqualTo(new Origin(lsn("1/ABCDEF"), "upstream"));
	}

	@Test
	void decodeTransactionalAndNonTransactionalMessages() {
		assertThat(decode("pg17/message-transactional"))
			.isEqualTo(new Message(null, true, lsn("0/1A480C8"), "postlog", utf8("in a transaction")));
		assertThat(decode("pg17/message-nontransactional"))
			.isEqualTo(new Message(null, false, lsn("0/1A48140"), "postlog", utf8("on its own")));
		assertThat(decode("pg14/message-transactional"))
			.isEqualTo(new Message(null, true, lsn("0/1803CF8"), "postlog", utf8("in a transaction")));
	}

	@Test
	void decodeStreamStartStopAndCommit() {
		assertThat(decode("pg17/stream-start-first")).isEqualTo(new StreamStart(787, true));
		assertThat(decode("pg17/stream-start")).isEqualTo(new StreamStart(787, false));
		assertThat(decode("pg17/stream-stop")).isEqualTo(new StreamStop());
		assertThat(decode("pg17/stream-commit")).isEqualTo(
				new StreamCommit(787, 0, lsn("0/1A47C70"), lsn("0/1A47CE8"), time("2026-11-29T15:12:50.118761Z")));
		assertThat(decode("pg14/stream-commit")).isEqualTo(
				new StreamCommit(777, 0, lsn("0/18038B8"), lsn("0/1803930"), time("2026-11-29T15:14:35.845173Z")));
	}

	@Test
	void decodeInStreamMessagesReadTheirXidPrefix() {
		long xid = 787;
		int streamItems = 16435;
		assertThat(decode("pg17/in-stream-type")).isEqualTo(new Type(xid, MOOD, "public", "mood"));
		assertThat(decode("pg17/in-stream-relation"))
			.isEqualTo(new Relation(xid, streamItems, "public", "stream_items", 'd', List
				.of(new Column(1, "id", 23, -1), new Column(0, "mood", MOOD, -1), new Column(0, "payload", 25, -1))));
		assertThat(decode("pg17/in-stream-message"))
			.isEqualTo(new Message(xid, true, lsn("0/199BA08"), "postlog", utf8("streamed")));
		assertThat(decode("pg17/in-stream-insert"))
			.isEqualTo(new Insert(xid, streamItems, tuple(text("1"), text("ok"), text("x".repeat(100)))));
		assertThat(decode("pg17/in-stream-update"))
			.isEqualTo(new Update(xid, streamItems, null, null, tuple(text("1"), text("ok"), text("y"))));
		assertThat(decode("pg17/in-stream-delete"))
			.isEqualTo(new Delete(xid, streamItems, tuple(text("2"), NULL, NULL), null));
		assertThat(decode("pg17/in-stream-truncate")).isEqualTo(new Truncate(xid, 0, List.of(16442)));
		assertThat(decode("pg14/in-stream-insert"))
			.isEqualTo(new Insert(777L, streamItems, tuple(text("1"), text("ok"), text("x".repeat(100)))));
	}

	@Test
	void decodeInStreamMessageOutsideStreamBlockFails() {
		assertThatExceptionOfType(PgOutputDecodingException.class)
			.isThrownBy(() -> PgOutputDecoder.decode(ByteBuffer.wrap(Fixtures.load("pg17/in-stream-insert").bytes())));
	}

	@Test
	void decodeStreamAbortOfSubtransaction() {
		assertThat(decode("pg17/stream-abort")).isEqualTo(new StreamAbort(775, 776, null, null));
		assertThat(decode("pg14/stream-abort")).isEqualTo(new StreamAbort(765, 766, null, null));
	}

	@Test
	void decodeParallelStreamAbortWithAbortLsnAndTime() {
		assertThat(decode("pg17/stream-abort-parallel"))
			.isEqualTo(new StreamAbort(758, 759, lsn("0/1957C08"), time("2026-11-29T15:12:48.991306Z")));
	}

	@Test
	void decodeTwoPhaseMessages() {
		assertThat(decode("pg17/begin-prepare")).isEqualTo(new BeginPrepare(lsn("0/1958758"), lsn("0/1958858"),
				time("2026-11-29T15:12:49.484484Z"), 769, "postlog-commit"));
		assertThat(decode("pg17/prepare")).isEqualTo(new Prepare(0, lsn("0/1958758"), lsn("0/1958858"),
				time("2026-11-29T15:12:49.484484Z"), 769, "postlog-commit"));
		assertThat(decode("pg17/commit-prepared")).isEqualTo(new CommitPrepared(0, lsn("0/1958858"), lsn("0/19588A0"),
				time("2026-11-29T15:12:49.518907Z"), 769, "postlog-commit"));
		assertThat(decode("pg17/rollback-prepared"))
			.isEqualTo(new RollbackPrepared(0, lsn("0/19589E8"), lsn("0/1958A30"), time("2026-11-29T15:12:49.560610Z"),
					time("2026-11-29T15:12:49.577051Z"), 770, "postlog-rollback"));
		assertThat(decode("pg17/stream-prepare")).isEqualTo(new StreamPrepare(0, lsn("0/1A77538"), lsn("0/1A77640"),
				time("2026-11-29T15:12:50.522910Z"), 797, "postlog-streamed"));
	}

	@Test
	void decodeBenchmarkRowInTextAndBinary() {
		assertThat(decode("pg17/bench-insert-text")).isEqualTo(new Insert(null, 16428,
				tuple(text("42"), text("7"), text("a widget of some length"), text("2024-05-01 12:34:56.789+00"),
						text("1234.56"), text("{\"color\": \"red\", \"sizes\": [1, 2, 3]}"))));
		assertThat(decode("pg17/bench-insert-binary")).isEqualTo(new Insert(null, 16428, tuple(
				binary("000000000000002a"), binary("00000007"), new TupleValue.Binary(utf8("a widget of some length")),
				binary("0002ba627b9bc608"), binary("000200000000000204d215e0"),
				new TupleValue.Binary(concat(new byte[] { 1 }, utf8("{\"color\": \"red\", \"sizes\": [1, 2, 3]}"))))));
	}

	@Test
	void decodeEveryValueFixtureKeepsOneValuePerRelationColumn() {
		int columns = ((Relation) decode("pg17/values-relation")).columns().size();
		for (String name : List.of("pg17/values-insert-text-typical", "pg17/values-insert-binary-typical",
				"pg17/values-insert-text-special", "pg17/values-insert-binary-special", "pg14/values-insert-text-nulls",
				"pg12/values-insert-text-typical")) {
			assertThat(((Insert) decode(name)).newTuple().size()).as(name).isEqualTo(columns);
		}
	}

	@Test
	void decodeReadsFromPositionToLimitWithoutMovingTheBufferWhateverItsByteOrder() {
		byte[] message = Fixtures.load("pg17/commit").bytes();
		ByteBuffer buffer = ByteBuffer.allocateDirect(message.length + 10).order(ByteOrder.LITTLE_ENDIAN);
		buffer.position(3);
		buffer.put(message);
		buffer.position(3).limit(3 + message.length);
		assertThat(PgOutputDecoder.decode(buffer)).isEqualTo(decode("pg17/commit"));
		assertThat(buffer.position()).isEqualTo(3);
		assertThat(buffer.limit()).isEqualTo(3 + message.length);
		assertThat(buffer.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
	}

	@Test
	void decodedValuesDoNotShareTheCallersBuffer() {
		byte[] message = Fixtures.load("pg17/insert-text").bytes().clone();
		Insert insert = (Insert) PgOutputDecoder.decode(ByteBuffer.wrap(message));
		Arrays.fill(message, (byte) 0);
		assertThat(insert).isEqualTo(decode("pg17/insert-text"));
	}

	@Test
	void decodeEmptyBufferNamesNoMessageType() {
		assertThatExceptionOfType(PgOutputDecodingException.class)
			.isThrownBy(() -> PgOutputDecoder.decode(ByteBuffer.allocate(0)))
			.satisfies((ex) -> {
				assertThat(ex.messageType()).isNull();
				assertThat(ex.offset()).isZero();
				assertThat(ex).hasMessage("Empty pgoutput message at byte 0: no bytes");
			});
	}

	@Test
	void decodeUnknownMessageTypeFails() {
		assertThatExceptionOfType(PgOutputDecodingException.class)
			.isThrownBy(() -> PgOutputDecoder.decode(ByteBuffer.wrap(new byte[] { 'Z', 0, 0 })))
			.satisfies((ex) -> {
				assertThat(ex.messageType()).isEqualTo('Z');
				assertThat(ex.offset()).isZero();
				assertThat(ex).hasMessage("Unreadable pgoutput message of type 0x5a at byte 0: unknown message type");
			});
	}

	@Test
	void decodeWithTrailingBytesFails() {
		byte[] commit = Fixtures.load("pg17/commit").bytes();
		assertThatExceptionOfType(PgOutputDecodingException.class)
			.isThrownBy(() -> PgOutputDecoder.decode(ByteBuffer.wrap(Arrays.copyOf(commit, commit.length + 1))))
			.satisfies((ex) -> {
				assertThat(ex.messageType()).isEqualTo('C');
				assertThat(ex.offset()).isEqualTo(commit.length);
				assertThat(ex.reason()).isEqualTo("1 trailing bytes after the message");
			});
	}

	@Test
	void decodeNegativeValueLengthFailsWithoutValueBytesInMessage() {
		// Insert into 1, one text column whose length is -1
		byte[] message = { 'I', 0, 0, 0, 1, 'N', 0, 1, 't', (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF };
		assertThatExceptionOfType(PgOutputDecodingException.class)
			.isThrownBy(() -> PgOutputDecoder.decode(ByteBuffer.wrap(message)))
			.satisfies((ex) -> {
				assertThat(ex.offset()).isEqualTo(9);
				assertThat(ex).hasMessage(
						"Malformed pgoutput Insert message ('I') at byte 9: a text value length -1 is negative");
			});
	}

	@Test
	void decodeValueLongerThanMessageFailsWithoutShowingTheValue() {
		byte[] message = { 'I', 0, 0, 0, 1, 'N', 0, 1, 't', 0, 0, 0, 9, 's', 'e', 'c', 'r', 'e', 't' };
		assertThatExceptionOfType(PgOutputDecodingException.class)
			.isThrownBy(() -> PgOutputDecoder.decode(ByteBuffer.wrap(message)))
			.withMessage("Malformed pgoutput Insert message ('I') at byte 9: "
					+ "a text value length 9 exceeds the 6 bytes left")
			.withMessageNotContaining("secret");
	}

	@Test
	void decodeUnknownTupleKindFails() {
		byte[] message = { 'U', 0, 0, 0, 1, 'X', 0, 0 };
		assertThatExceptionOfType(PgOutputDecodingException.class)
			.isThrownBy(() -> PgOutputDecoder.decode(ByteBuffer.wrap(message)))
			.satisfies((ex) -> {
				assertThat(ex.offset()).isEqualTo(5);
				assertThat(ex.reason()).isEqualTo("tuple kind 0x58 where 'K', 'O' or 'N' belongs");
			});
	}

	@Test
	void decodeUnknownValueKindFails() {
		byte[] message = { 'I', 0, 0, 0, 1, 'N', 0, 2, 'n', 'q' };
		assertThatExceptionOfType(PgOutputDecodingException.class)
			.isThrownBy(() -> PgOutputDecoder.decode(ByteBuffer.wrap(message)))
			.satisfies((ex) -> {
				assertThat(ex.offset()).isEqualTo(9);
				assertThat(ex.reason()).isEqualTo("value kind 0x71 of column 2 is unknown");
			});
	}

	@Test
	void decodeStringWithoutNulTerminatorFails() {
		byte[] message = { 'O', 0, 0, 0, 0, 0, 0, 0, 1, 'a', 'b' };
		assertThatExceptionOfType(PgOutputDecodingException.class)
			.isThrownBy(() -> PgOutputDecoder.decode(ByteBuffer.wrap(message)))
			.satisfies((ex) -> {
				assertThat(ex.offset()).isEqualTo(9);
				assertThat(ex.reason()).isEqualTo("the origin name has no NUL terminator");
			});
	}

	@Test
	void decodeTruncateWithImpossibleRelationCountFails() {
		byte[] negative = { 'T', (byte) 0x80, 0, 0, 0, 0 };
		byte[] tooMany = { 'T', 0x7F, 0, 0, 0, 0, 0, 0, 0, 1 };
		assertThatExceptionOfType(PgOutputDecodingException.class)
			.isThrownBy(() -> PgOutputDecoder.decode(ByteBuffer.wrap(negative)))
			.withMessageContaining("relation count -2147483648 is negative");
		assertThatExceptionOfType(PgOutputDecodingException.class)
			.isThrownBy(() -> PgOutputDecoder.decode(ByteBuffer.wrap(tooMany)))
			.withMessageContaining("relation count 2130706432 exceeds the 4 bytes left");
	}

	@Test
	void decodeMessageWithUnknownFlagsFails() {
		byte[] message = Fixtures.load("pg17/message-transactional").bytes().clone();
		message[1] = 3;
		assertThatExceptionOfType(PgOutputDecodingException.class)
			.isThrownBy(() -> PgOutputDecoder.decode(ByteBuffer.wrap(message)))
			.withMessage("Malformed pgoutput Message message ('M') at byte 1: unknown flags 3");
	}

	@ParameterizedTest
	@MethodSource("io.postlog.pgoutput.Fixtures#all")
	void decodeEveryTruncatedPrefixOfFixtureFails(Fixture fixture) {
		PgOutputMessage original = fixture.decode();
		for (int length = 0; length < fixture.bytes().length; length++) {
			ByteBuffer prefix = ByteBuffer.wrap(fixture.bytes(), 0, length);
			if (original instanceof StreamAbort abort && abort.abortLsn() != null && length == 9) {
				// The one prefix that is itself a message: without its abort LSN and time
				// a
				// parallel Stream Abort is the Stream Abort of protocol v2 and v3.
				assertThat(PgOutputDecoder.decode(prefix))
					.isEqualTo(new StreamAbort(abort.xid(), abort.subXid(), null, null));
				continue;
			}
			int end = length;
			assertThatExceptionOfType(PgOutputDecodingException.class).as("prefix of %d bytes", length)
				.isThrownBy(() -> PgOutputDecoder.decode(prefix, fixture.inStreamBlock()))
				.satisfies((ex) -> assertThat(ex.offset()).isBetween(0, end));
		}
	}

	@ParameterizedTest
	@MethodSource("io.postlog.pgoutput.Fixtures#all")
	void flippingAnyByteOfFixtureFailsOrChangesTheRecord(Fixture fixture) {
		PgOutputMessage original = fixture.decode();
		int rejected = 0;
		int changed = 0;
		for (int index = 0; index < fixture.bytes().length; index++) {
			byte[] mutated = fixture.bytes().clone();
			mutated[index] ^= (byte) 0xFF;
			try {
				PgOutputMessage decoded = PgOutputDecoder.decode(ByteBuffer.wrap(mutated), fixture.inStreamBlock());
				assertThat(decoded).as("byte %d flipped", index).isNotEqualTo(original);
				changed++;
			}
			catch (PgOutputDecodingException ex) {
				rejected++;
			}
		}
		assertThat(rejected + changed).isEqualTo(fixture.bytes().length).isPositive();
	}

	static PgOutputMessage decode(String name) {
		return Fixtures.load(name).decode();
	}

	static Lsn lsn(String text) {
		return Lsn.parse(text);
	}

	static Instant time(String text) {
		return Instant.parse(text);
	}

	static TupleData tuple(TupleValue... values) {
		return new TupleData(List.of(values));
	}

	static TupleValue text(String text) {
		return new TupleValue.Text(utf8(text));
	}

	static TupleValue binary(String hex) {
		return new TupleValue.Binary(HexFormat.of().parseHex(hex));
	}

	static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	static byte[] concat(byte[] first, byte[] second) {
		byte[] both = Arrays.copyOf(first, first.length + second.length);
		System.arraycopy(second, 0, both, first.length, second.length);
		return both;
	}

}
