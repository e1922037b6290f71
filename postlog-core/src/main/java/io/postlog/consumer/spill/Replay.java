package io.postlog.consumer.spill;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

import io.postlog.pgoutput.PgOutputMessage;
import org.jspecify.annotations.Nullable;

/**
 * A committed streamed transaction as the protocol 1 messages a non-streamed transaction
 * of the same content would have been: a Begin, then its buffered messages in arrival
 * order without their xid (the heap part, then the spilled part, aborted subtransactions
 * left out), then a Commit. Begin and Commit carry the Stream Commit's xid, commit LSN,
 * end LSN and commit time, so that assembling them as protocol 1 messages gives every
 * change the commit LSN, time, index and id that protocol 1 would have given it.
 * <p>
 * Lazy and one-pass: spilled messages are read from disk as the iteration reaches them,
 * and heap budget is given back as messages are passed on. Each payload is valid until
 * the next call to {@link #hasNext()} or {@link #next()}. {@link #close()} removes the
 * spill file; it runs by itself once the Commit has been passed on, and must be called
 * when the iteration is abandoned. Not thread-safe: used on the thread that owns the
 * {@link StreamedTransactions} it came from.
 * <p>
 * Internal: public for the consumer's use, not API.
 */
public final class Replay implements Iterator<ByteBuffer>, AutoCloseable {

	private static final long POSTGRES_EPOCH_SECONDS = 946_684_800L;

	private enum Step {

		BEGIN, MEMORY, SPILL, COMMIT, DONE

	}

	/** Told of a failure while replaying: the stream's streamed transactions fail. */
	private final Consumer<RuntimeException> failed;

	/** Told once the replay is closed. */
	private final Consumer<Replay> closedBy;

	private final StreamStorage storage;

	private final StreamedTransaction transaction;

	private final PgOutputMessage.StreamCommit commit;

	private Step step = Step.BEGIN;

	private int memoryIndex;

	private @Nullable SpillReader spillReader;

	private @Nullable ByteBuffer next;

	private boolean closed;

	Replay(StreamStorage storage, StreamedTransaction transaction, PgOutputMessage.StreamCommit commit,
			Consumer<RuntimeException> failed, Consumer<Replay> closedBy) {
		this.failed = failed;
		this.closedBy = closedBy;
		this.storage = storage;
		this.transaction = transaction;
		this.commit = commit;
	}

	/**
	 * Returns the Stream Commit this replay ends with.
	 * @return the commit
	 */
	PgOutputMessage.StreamCommit commit() {
		return this.commit;
	}

	/**
	 * Returns whether another payload follows, reading spilled messages as needed.
	 * @return {@code true} until the Commit has been returned
	 * @throws SpillFileException if the spill file cannot be read back as written
	 */
	@Override
	public boolean hasNext() {
		if (this.next == null && this.step != Step.DONE) {
			try {
				this.next = advance();
			}
			catch (RuntimeException ex) {
				this.failed.accept(ex);
				close();
				throw ex;
			}
		}
		return this.next != null;
	}

	/**
	 * Returns the next payload, a protocol 1 pgoutput message.
	 * @return the payload, valid until the next call
	 * @throws SpillFileException if the spill file cannot be read back as written
	 */
	@Override
	public ByteBuffer next() {
		if (!hasNext()) {
			throw new NoSuchElementException("Replay of transaction " + this.commit.xid() + " is complete");
		}
		ByteBuffer payload = this.next;
		this.next = null;
		return payload;
	}

	private @Nullable ByteBuffer advance() {
		while (true) {
			switch (this.step) {
				case BEGIN -> {
					this.step = Step.MEMORY;
					return begin(this.commit);
				}
				case MEMORY -> {
					ByteBuffer payload = nextInMemory();
					if (payload != null) {
						return payload;
					}
					this.step = Step.SPILL;
					SpillFile file = this.transaction.spill();
					if (file != null && file.length() > 0) {
						this.spillReader = new SpillReader(file, this.transaction.xid());
					}
				}
				case SPILL -> {
					ByteBuffer payload = nextSpilled();
					if (payload != null) {
						return payload;
					}
					this.step = Step.COMMIT;
				}
				case COMMIT -> {
					this.step = Step.DONE;
					close();
					return commit(this.commit);
				}
				case DONE -> {
					return null;
				}
			}
		}
	}

	private @Nullable ByteBuffer nextInMemory() {
		List<byte @Nullable []> memory = this.transaction.memory();
		while (this.memoryIndex < memory.size()) {
			byte[] entry = memory.set(this.memoryIndex++, null);
			if (entry == null) {
				continue;
			}
			this.storage.releaseMemory(StreamedTransaction.cost(entry));
			if (!this.transaction.isSkipped(ByteBuffer.wrap(entry).getInt() & 0xFFFFFFFFL, entry[4])) {
				return ByteBuffer.wrap(entry, 4, entry.length - 4).slice();
			}
		}
		return null;
	}

	private @Nullable ByteBuffer nextSpilled() {
		SpillReader reader = this.spillReader;
		if (reader == null) {
			return null;
		}
		ByteBuffer record;
		while ((record = reader.next()) != null) {
			if (!this.transaction.isSkipped(record.getInt(0) & 0xFFFFFFFFL, record.get(4))) {
				return record.slice(4, record.limit() - 4);
			}
		}
		return null;
	}

	static ByteBuffer begin(PgOutputMessage.StreamCommit commit) {
		ByteBuffer begin = ByteBuffer.allocate(21);
		begin.put((byte) 'B')
			.putLong(commit.commitLsn().value())
			.putLong(micros(commit.commitTime()))
			.putInt((int) commit.xid());
		return begin.flip();
	}

	static ByteBuffer commit(PgOutputMessage.StreamCommit commit) {
		ByteBuffer end = ByteBuffer.allocate(26);
		end.put((byte) 'C')
			.put((byte) 0)
			.putLong(commit.commitLsn().value())
			.putLong(commit.endLsn().value())
			.putLong(micros(commit.commitTime()));
		return end.flip();
	}

	/** The inverse of the decoder's timestamps: microseconds since 2000-01-01 UTC. */
	static long micros(Instant time) {
		return Math.addExact(Math.multiplyExact(time.getEpochSecond() - POSTGRES_EPOCH_SECONDS, 1_000_000L),
				time.getNano() / 1_000);
	}

	/**
	 * Gives back the heap budget of the messages not passed on and removes the spill
	 * file. Idempotent.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		this.next = null;
		this.step = Step.DONE;
		this.transaction.discard(this.storage);
		this.closedBy.accept(this);
	}

	/** Reads a spill file's records in order, checking each against its checksum. */
	private static final class SpillReader {

		private final SpillFile file;

		private final long xid;

		private final long end;

		private final ByteBuffer buffer = ByteBuffer.allocateDirect(StreamStorage.BUFFER_BYTES);

		private final CRC32C checksum = new CRC32C();

		private @Nullable ByteBuffer large;

		/** The file offset of the buffer's limit. */
		private long filled;

		/** The file offset of the next record. */
		private long position;

		SpillReader(SpillFile file, long xid) {
			this.file = file;
			this.xid = xid;
			this.end = file.length();
			this.buffer.limit(0);
			long size;
			try {
				size = file.size();
			}
			catch (IOException ex) {
				throw failure("cannot be read", ex);
			}
			if (size != this.end) {
				throw failure("holds " + size + " bytes where " + this.end + " were written: it was truncated or "
						+ "changed by something else", null);
			}
		}

		/**
		 * Returns the next record (xid, then message), or {@code null} at the end.
		 */
		@Nullable ByteBuffer next() {
			if (this.position == this.end) {
				return null;
			}
			if (this.end - this.position < SpillFile.HEADER_BYTES) {
				throw corrupt("a record header is cut short");
			}
			fill(SpillFile.HEADER_BYTES);
			int length = this.buffer.getInt();
			int expected = this.buffer.getInt();
			if (length < 5 || length > this.end - this.position - SpillFile.HEADER_BYTES) {
				throw corrupt("a record length of " + length + " does not fit the file");
			}
			ByteBuffer record;
			if (length <= this.buffer.capacity()) {
				fill(length);
				record = this.buffer.slice(this.buffer.position(), length);
				this.buffer.position(this.buffer.position() + length);
			}
			else {
				record = readLarge(length);
			}
			this.checksum.reset();
			this.checksum.update(record.duplicate());
			if ((int) this.checksum.getValue() != expected) {
				throw corrupt("a record does not match its checksum");
			}
			this.position += SpillFile.HEADER_BYTES + (long) length;
			return record;
		}

		/** Makes the buffer hold at least {@code bytes} from its position on. */
		private void fill(int bytes) {
			if (this.buffer.remaining() >= bytes) {
				return;
			}
			this.buffer.compact();
			try {
				while (this.buffer.position() < bytes) {
					int read = this.file.read(this.buffer, this.filled);
					if (read < 0) {
						throw corrupt("the file ends early");
					}
					this.filled += read;
				}
			}
			catch (IOException ex) {
				throw failure("cannot be read at offset " + this.filled, ex);
			}
			finally {
				this.buffer.flip();
			}
		}

		private ByteBuffer readLarge(int length) {
			ByteBuffer target = this.large;
			if (target == null || target.capacity() < length) {
				target = ByteBuffer.allocate(length);
				this.large = target;
			}
			target.clear().limit(length);
			target.put(this.buffer);
			try {
				while (target.hasRemaining()) {
					int read = this.file.read(target, this.filled);
					if (read < 0) {
						throw corrupt("the file ends early");
					}
					this.filled += read;
				}
			}
			catch (IOException ex) {
				throw failure("cannot be read at offset " + this.filled, ex);
			}
			this.buffer.clear().limit(0);
			return target.flip();
		}

		private SpillFileException corrupt(String reason) {
			return failure("is corrupt at offset " + this.position + ": " + reason, null);
		}

		private SpillFileException failure(String what, @Nullable IOException cause) {
			return new SpillFileException(
					"Spill file " + this.file.path() + " of streamed transaction " + this.xid + " " + what, cause);
		}

	}

}
