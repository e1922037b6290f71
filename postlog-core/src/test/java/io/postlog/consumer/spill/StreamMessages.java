package io.postlog.consumer.spill;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.postlog.Lsn;
import io.postlog.pgoutput.PgOutputDecoder;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.PgOutputWriter;
import io.postlog.pgoutput.TupleData;
import io.postlog.pgoutput.TupleValue;

/**
 * Builds pgoutput messages as a stream block carries them (the xid after the type byte)
 * and reads replays back, for tests of {@link StreamedTransactions}.
 */
public final class StreamMessages {

	public static final Instant TIME = Instant.parse("2024-05-06T07:08:09.123456Z");

	public static final int TABLE = 16385;

	private StreamMessages() {
	}

	public static PgOutputMessage.Relation relation() {
		return relation(TABLE, "items");
	}

	public static PgOutputMessage.Relation relation(int relationId, String name) {
		return new PgOutputMessage.Relation(null, relationId, "public", name, 'd',
				List.of(new PgOutputMessage.Column(1, "id", 23, -1), new PgOutputMessage.Column(0, "payload", 25, -1)));
	}

	public static PgOutputMessage.Insert insert(int id, String payload) {
		return new PgOutputMessage.Insert(null, TABLE,
				new TupleData(List.of(text(Integer.toString(id)), text(payload))));
	}

	private static TupleValue text(String value) {
		return new TupleValue.Text(value.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Encodes a protocol 1 message as it arrives inside a stream block of a
	 * (sub)transaction.
	 */
	public static ByteBuffer inBlock(long xid, PgOutputMessage message) {
		byte[] plain = PgOutputWriter.write(message);
		if (message instanceof PgOutputMessage.Origin) {
			return ByteBuffer.wrap(plain);
		}
		ByteBuffer streamed = ByteBuffer.allocate(plain.length + 4);
		streamed.put(plain[0]).putInt((int) xid).put(plain, 1, plain.length - 1);
		return streamed.flip();
	}

	public static PgOutputMessage.StreamStart start(long xid, boolean first) {
		return new PgOutputMessage.StreamStart(xid, first);
	}

	public static PgOutputMessage.StreamCommit commit(long xid, long commitLsn) {
		return new PgOutputMessage.StreamCommit(xid, 0, Lsn.of(commitLsn), Lsn.of(commitLsn + 48), TIME);
	}

	public static PgOutputMessage.StreamAbort abort(long xid, long subXid) {
		return new PgOutputMessage.StreamAbort(xid, subXid, null, null);
	}

	/** Feeds one block of messages of a (sub)transaction. */
	public static void block(StreamedTransactions streams, long xid, boolean first, long recordXid,
			PgOutputMessage... messages) {
		streams.start(start(xid, first));
		for (PgOutputMessage message : messages) {
			streams.feed(inBlock(recordXid, message));
		}
		streams.stop();
	}

	/** Decodes a whole replay as protocol 1 messages, closing it. */
	public static List<PgOutputMessage> drain(Replay replay) {
		List<PgOutputMessage> messages = new ArrayList<>();
		try (replay) {
			while (replay.hasNext()) {
				messages.add(PgOutputDecoder.decode(replay.next()));
			}
		}
		return messages;
	}

	/** The messages a protocol 1 stream would have sent for the replayed transaction. */
	public static List<PgOutputMessage> asProtocolOne(PgOutputMessage.StreamCommit commit,
			PgOutputMessage... messages) {
		List<PgOutputMessage> expected = new ArrayList<>();
		expected.add(new PgOutputMessage.Begin(commit.commitLsn(), commit.commitTime(), commit.xid()));
		expected.addAll(List.of(messages));
		expected.add(new PgOutputMessage.Commit(0, commit.commitLsn(), commit.endLsn(), commit.commitTime()));
		return expected;
	}

}
