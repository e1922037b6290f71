package io.postlog.pgoutput;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * Encodes pgoutput protocol version 1 messages into the bytes the server sends, following
 * PostgreSQL's "Logical Replication Message Formats", plus the stream control messages of
 * protocol 2 and 4 to play a server that streams in-progress transactions. For tests that
 * drive the consumer with a fake stream. Stateless.
 */
public final class PgOutputWriter {

	private static final Instant POSTGRES_EPOCH = Instant.parse("2000-01-01T00:00:00Z");

	private PgOutputWriter() {
	}

	/**
	 * Encodes a message.
	 * @param message Begin, Commit, Origin, Relation, Type, Insert, Update, Delete,
	 * Truncate, Message (outside a streamed block), StreamStart, StreamStop, StreamCommit
	 * or StreamAbort
	 * @return the bytes
	 */
	public static byte[] write(PgOutputMessage message) {
		Out out = new Out();
		if (message instanceof PgOutputMessage.Begin begin) {
			out.tag('B').int64(begin.finalLsn().value()).time(begin.commitTime()).int32((int) begin.xid());
		}
		else if (message instanceof PgOutputMessage.Commit commit) {
			out.tag('C')
				.int8(commit.flags())
				.int64(commit.commitLsn().value())
				.int64(commit.endLsn().value())
				.time(commit.commitTime());
		}
		else if (message instanceof PgOutputMessage.Origin origin) {
			out.tag('O').int64(origin.commitLsn().value()).string(origin.name());
		}
		else if (message instanceof PgOutputMessage.Relation relation) {
			out.tag('R')
				.int32(relation.relationId())
				.string(relation.namespace())
				.string(relation.relationName())
				.int8(relation.replicaIdentity())
				.int16(relation.columns().size());
			for (PgOutputMessage.Column column : relation.columns()) {
				out.int8(column.flags()).string(column.name()).int32(column.typeOid()).int32(column.typeModifier());
			}
		}
		else if (message instanceof PgOutputMessage.Type type) {
			out.tag('Y').int32(type.typeOid()).string(type.namespace()).string(type.name());
		}
		else if (message instanceof PgOutputMessage.Insert insert) {
			out.tag('I').int32(insert.relationId()).tag('N').tuple(insert.newTuple());
		}
		else if (message instanceof PgOutputMessage.Update update) {
			out.tag('U').int32(update.relationId());
			oldImage(out, update.keyTuple(), update.oldTuple());
			out.tag('N').tuple(update.newTuple());
		}
		else if (message instanceof PgOutputMessage.Delete delete) {
			out.tag('D').int32(delete.relationId());
			oldImage(out, delete.keyTuple(), delete.oldTuple());
		}
		else if (message instanceof PgOutputMessage.Truncate truncate) {
			out.tag('T').int32(truncate.relationIds().size()).int8(truncate.options());
			truncate.relationIds().forEach(out::int32);
		}
		else if (message instanceof PgOutputMessage.Message logical) {
			out.tag('M')
				.int8(logical.transactional() ? 1 : 0)
				.int64(logical.lsn().value())
				.string(logical.prefix())
				.int32(logical.content().length)
				.bytes(logical.content());
		}
		else if (message instanceof PgOutputMessage.StreamStart start) {
			out.tag('S').int32((int) start.xid()).int8(start.firstSegment() ? 1 : 0);
		}
		else if (message instanceof PgOutputMessage.StreamStop) {
			out.tag('E');
		}
		else if (message instanceof PgOutputMessage.StreamCommit commit) {
			out.tag('c')
				.int32((int) commit.xid())
				.int8(commit.flags())
				.int64(commit.commitLsn().value())
				.int64(commit.endLsn().value())
				.time(commit.commitTime());
		}
		else if (message instanceof PgOutputMessage.StreamAbort abort) {
			out.tag('A').int32((int) abort.xid()).int32((int) abort.subXid());
			if (abort.abortLsn() != null && abort.abortTime() != null) {
				out.int64(abort.abortLsn().value()).time(abort.abortTime());
			}
		}
		else {
			throw new IllegalArgumentException("No writer for " + message.getClass().getSimpleName());
		}
		return out.toByteArray();
	}

	private static void oldImage(Out out, @Nullable TupleData keyTuple, @Nullable TupleData oldTuple) {
		if (keyTuple != null) {
			out.tag('K').tuple(keyTuple);
		}
		else if (oldTuple != null) {
			out.tag('O').tuple(oldTuple);
		}
	}

	private static final class Out {

		private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

		private final DataOutputStream data = new DataOutputStream(this.bytes);

		Out tag(char tag) {
			return int8(tag);
		}

		Out int8(int value) {
			return run(() -> this.data.writeByte(value));
		}

		Out int16(int value) {
			return run(() -> this.data.writeShort(value));
		}

		Out int32(int value) {
			return run(() -> this.data.writeInt(value));
		}

		Out int64(long value) {
			return run(() -> this.data.writeLong(value));
		}

		Out time(Instant time) {
			Duration since = Duration.between(POSTGRES_EPOCH, time);
			return int64(since.getSeconds() * 1_000_000 + since.getNano() / 1000);
		}

		Out string(String value) {
			return bytes(value.getBytes(StandardCharsets.UTF_8)).int8(0);
		}

		Out bytes(byte[] value) {
			return run(() -> this.data.write(value));
		}

		Out tuple(TupleData tuple) {
			int16(tuple.size());
			for (TupleValue value : tuple.values()) {
				if (value instanceof TupleValue.Text text) {
					tag('t').int32(text.bytes().length).bytes(text.bytes());
				}
				else if (value instanceof TupleValue.Binary binary) {
					tag('b').int32(binary.bytes().length).bytes(binary.bytes());
				}
				else {
					tag((value instanceof TupleValue.Null) ? 'n' : 'u');
				}
			}
			return this;
		}

		byte[] toByteArray() {
			return this.bytes.toByteArray();
		}

		private Out run(Write write) {
			try {
				write.run();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			return this;
		}

	}

	@FunctionalInterface
	private interface Write {

		void run() throws IOException;

	}

}
