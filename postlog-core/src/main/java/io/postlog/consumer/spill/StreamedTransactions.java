package io.postlog.consumer.spill;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.postlog.ReplicationConsumerException;
import io.postlog.pgoutput.PgOutputDecodingException;
import io.postlog.pgoutput.PgOutputMessage;
import org.jspecify.annotations.Nullable;

/**
 * The in-progress transactions a pgoutput stream of protocol 2+ with
 * {@code streaming 'on'} sends before they commit, buffered until their Stream Commit and
 * then replayed as the protocol 1 transaction they would otherwise have been. One per
 * stream (session): a new session streams every open transaction again from its first
 * change.
 * <p>
 * <b>Protocol.</b> The owner hands over each Stream Start ({@link #start}), every payload
 * up to the block's Stream Stop ({@link #feed}, without decoding it), the Stream Stop
 * ({@link #stop}), and outside blocks each Stream Abort ({@link #abort}) and Stream
 * Commit ({@link #commit}), which returns a {@link Replay}. Blocks of several
 * transactions interleave; each holds messages of one top-level transaction and its
 * subtransactions.
 * <p>
 * <b>Bounds.</b> Messages are kept on the heap up to {@link StreamingOptions#memory()}
 * bytes, all open transactions together; past that, each transaction appends to a spill
 * file of its own, up to {@link StreamingOptions#maxSpill()} bytes of spill files in all.
 * A transaction keeps spilling while anything of it is spilled, so its heap part always
 * precedes its spilled part. Besides the budget: one 64 KiB write buffer, one 64 KiB read
 * buffer per open replay, and the schema messages of recent runs (see
 * {@link StreamedTransaction}).
 * <p>
 * <b>Failures.</b> Any failure ({@link SpillLimitExceededException},
 * {@link SpillFileException}, a protocol violation) leaves the instance failed: every
 * later call but {@link #close()} throws, so that no transaction with a message missing
 * is ever replayed. Spill files go when their transaction commits (once its replay is
 * closed), aborts, or the instance closes; a process that died leaves them behind, and
 * the next instance on the same directory removes them.
 * <p>
 * Not thread-safe: one thread (the reader of the stream) calls everything, replays
 * included; {@link #spilledBytes()} and {@link #spilledBytesTotal()} may be read from any
 * thread.
 * <p>
 * Internal: public for the consumer's use, not API.
 */
public final class StreamedTransactions implements AutoCloseable {

	private final StreamStorage storage;

	private final Map<Long, StreamedTransaction> open = new HashMap<>();

	private final Set<Replay> replays = Collections.newSetFromMap(new IdentityHashMap<>());

	private @Nullable StreamedTransaction block;

	private @Nullable RuntimeException failure;

	private boolean closed;

	/**
	 * Creates the buffer of one stream and removes the spill directories that stopped
	 * consumers left under the options' spill directory.
	 * @param options the budgets and the spill directory
	 * @param label a name for the private spill directory (the slot name)
	 */
	public StreamedTransactions(StreamingOptions options, String label) {
		this.storage = new StreamStorage(options, label);
	}

	/**
	 * Returns whether a stream block is open: the payloads that follow belong to it, up
	 * to its Stream Stop.
	 * @return {@code true} between Stream Start and Stream Stop
	 */
	public boolean inBlock() {
		return this.block != null;
	}

	/**
	 * Returns whether a payload is a Stream Stop, without decoding it.
	 * @param payload one pgoutput message
	 * @return {@code true} for a Stream Stop
	 */
	public static boolean isStreamStop(ByteBuffer payload) {
		return payload.hasRemaining() && payload.get(payload.position()) == 'E';
	}

	/**
	 * Opens a block of a transaction, new with its first segment.
	 * @param start the Stream Start
	 */
	public void start(PgOutputMessage.StreamStart start) {
		checkUsable();
		long xid = start.xid();
		if (this.block != null) {
			throw fail("Stream Start of transaction " + xid + " inside the block of transaction " + this.block.xid());
		}
		StreamedTransaction transaction = this.open.get(xid);
		if (start.firstSegment()) {
			if (transaction != null) {
				throw fail("Stream Start of transaction " + xid + " says it is the first, but it was started before");
			}
			transaction = new StreamedTransaction(xid);
			this.open.put(xid, transaction);
		}
		else if (transaction == null) {
			throw fail("Stream Start of a later block of transaction " + xid
					+ ", whose first block this stream did not send");
		}
		this.block = transaction;
	}

	/**
	 * Keeps one message of the open block. Only its type and xid are read here; the
	 * replay's decoder reads the rest.
	 * @param payload a pgoutput message between Stream Start and Stream Stop, other than
	 * the Stream Stop; read from position to limit and left unchanged
	 * @throws PgOutputDecodingException if the message is too short for its xid or of a
	 * type that does not belong in a block
	 * @throws SpillLimitExceededException if spilling it would exceed the spill limit
	 * @throws SpillFileException if the spill file cannot be written
	 */
	public void feed(ByteBuffer payload) {
		checkUsable();
		StreamedTransaction transaction = this.block;
		if (transaction == null) {
			throw fail("A stream message was fed outside any stream block");
		}
		try {
			int position = payload.position();
			if (!payload.hasRemaining()) {
				throw new PgOutputDecodingException(null, 0, "no bytes");
			}
			byte tag = payload.get(position);
			long recordXid;
			int bodyStart;
			if (tag == 'O') {
				recordXid = transaction.xid();
				bodyStart = 1;
			}
			else if (carriesXid(tag)) {
				if (payload.remaining() < 5) {
					throw new PgOutputDecodingException((char) tag, payload.remaining(),
							"the streamed transaction's xid is cut short");
				}
				recordXid = payload.getInt(position + 1) & 0xFFFFFFFFL;
				if (recordXid == 0) {
					throw new PgOutputDecodingException((char) tag, 1, "the streamed transaction's xid is 0");
				}
				bodyStart = 5;
			}
			else {
				throw new PgOutputDecodingException((char) (tag & 0xFF), 0,
						"this message type does not belong between Stream Start and Stream Stop");
			}
			ByteBuffer body = payload.duplicate().position(position + bodyStart);
			transaction.append(this.storage, recordXid, tag, body);
		}
		catch (RuntimeException ex) {
			throw fail(ex);
		}
	}

	private static boolean carriesXid(byte tag) {
		return tag == 'I' || tag == 'U' || tag == 'D' || tag == 'T' || tag == 'R' || tag == 'Y' || tag == 'M';
	}

	/**
	 * Closes the open block.
	 * @throws SpillFileException if the buffered spill bytes cannot be written
	 */
	public void stop() {
		checkUsable();
		if (this.block == null) {
			throw fail("Stream Stop outside any stream block");
		}
		this.block = null;
		try {
			this.storage.flush();
		}
		catch (RuntimeException ex) {
			throw fail(ex);
		}
	}

	/**
	 * Drops a transaction (when the Stream Abort's subtransaction xid is its own xid) or
	 * one of its subtransactions. An abort of a transaction this stream never started
	 * drops nothing.
	 * @param abort the Stream Abort
	 */
	public void abort(PgOutputMessage.StreamAbort abort) {
		checkUsable();
		if (this.block != null) {
			throw fail("Stream Abort of transaction " + abort.xid() + " inside a stream block");
		}
		StreamedTransaction transaction = this.open.get(abort.xid());
		if (transaction == null) {
			return;
		}
		try {
			if (abort.subXid() == abort.xid()) {
				this.open.remove(abort.xid());
				transaction.discard(this.storage);
			}
			else {
				transaction.abortSubtransaction(this.storage, abort.subXid());
				this.storage.flush();
			}
		}
		catch (RuntimeException ex) {
			throw fail(ex);
		}
	}

	/**
	 * Ends a transaction: its messages become a replay, to be passed on (and closed)
	 * before the stream is read further, so that its Relation messages reach the row
	 * decoder in stream order.
	 * @param commit the Stream Commit
	 * @return the replay, owned by the caller
	 */
	public Replay commit(PgOutputMessage.StreamCommit commit) {
		checkUsable();
		if (this.block != null) {
			throw fail("Stream Commit of transaction " + commit.xid() + " inside a stream block");
		}
		StreamedTransaction transaction = this.open.remove(commit.xid());
		if (transaction == null) {
			throw fail("Stream Commit of transaction " + commit.xid() + " (commit LSN " + commit.commitLsn()
					+ "), which this stream never started");
		}
		Replay replay = new Replay(this.storage, transaction, commit, this::failed, this::replayClosed);
		this.replays.add(replay);
		return replay;
	}

	/**
	 * Returns whether any transaction is open (started, neither committed nor aborted).
	 * @return {@code true} while one is
	 */
	public boolean hasOpenTransactions() {
		return !this.open.isEmpty();
	}

	/**
	 * Returns the bytes of spill files on disk now, all open transactions and open
	 * replays together. Thread-safe.
	 * @return the bytes
	 */
	public long spilledBytes() {
		return this.storage.spilled();
	}

	/**
	 * Returns the bytes ever written to spill files by this instance. Thread-safe.
	 * @return the bytes
	 */
	public long spilledBytesTotal() {
		return this.storage.spilledTotal();
	}

	/**
	 * Returns the heap budget in use; for the owning thread.
	 * @return the bytes
	 */
	public long memoryBytes() {
		return this.storage.memory();
	}

	/**
	 * Returns this stream's private spill directory, once something spilled.
	 * @return the directory, or {@code null}
	 */
	public @Nullable Path spillDirectory() {
		return this.storage.directory().path();
	}

	void replayClosed(Replay replay) {
		this.replays.remove(replay);
	}

	void failed(RuntimeException ex) {
		if (this.failure == null) {
			this.failure = ex;
		}
	}

	private void checkUsable() {
		if (this.closed) {
			throw new IllegalStateException("The streamed transactions of this stream are closed");
		}
		RuntimeException earlier = this.failure;
		if (earlier != null) {
			throw new ReplicationConsumerException(
					"The streamed transactions of this stream failed earlier: " + earlier.getMessage(), earlier);
		}
	}

	private RuntimeException fail(String message) {
		return fail(new ReplicationConsumerException(message));
	}

	private RuntimeException fail(RuntimeException ex) {
		failed(ex);
		return ex;
	}

	/**
	 * Drops every open transaction, closes every open replay and removes the spill
	 * directory. Idempotent.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		this.block = null;
		for (Replay replay : new ArrayList<>(this.replays)) {
			replay.close();
		}
		List<StreamedTransaction> transactions = new ArrayList<>(this.open.values());
		this.open.clear();
		for (StreamedTransaction transaction : transactions) {
			transaction.discard(this.storage);
		}
		this.storage.close();
	}

}
