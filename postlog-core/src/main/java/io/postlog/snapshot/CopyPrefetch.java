package io.postlog.snapshot;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the CopyData messages of one {@code COPY ... TO STDOUT} on a thread of its own,
 * ahead of the thread that decodes them, so that the server sends the next rows while the
 * last ones are decoded. A backfill reads in key order on one session: when its one
 * thread decoded between socket reads, the server's backend waited for it during part of
 * every chunk.
 * <p>
 * Messages pass in batches of at most {@value #BATCH_MESSAGES} messages or about
 * {@value #BATCH_BYTES} bytes. The reading thread reads a message only while the bytes it
 * read and the decoding thread has not finished with stay within {@value #AHEAD_BYTES}:
 * small rows are read that far ahead, a large one (a message over that size) is not read
 * until the decoding thread is done with the one before, so a copy holds at most one
 * large message at a time, as when one thread did both. The reading thread ends with the
 * copy: at its end, at a failure to read (which the decoding thread then gets as its
 * own), or, once the decoding thread gave up ({@link #close} before the end), after
 * reading the rest of the copy and dropping it, which the connection needs before it can
 * roll back. The connection is the reading thread's from {@link #start} until
 * {@link #close}, which waits for that thread to end.
 * <p>
 * Not thread-safe beyond that pairing: one decoding thread calls {@link #next} and
 * {@link #close}.
 */
final class CopyPrefetch implements CopyInput.Source, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(CopyPrefetch.class);

	static final int BATCH_MESSAGES = 512;

	static final int BATCH_BYTES = 64 * 1024;

	static final int AHEAD_BYTES = 1024 * 1024;

	private static final long WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/** The end of the copy, after the last batch. */
	private static final Batch END = new Batch(new byte[0][], 0);

	/** Batches, then {@link #END} or the reading thread's failure. */
	private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();

	private final Thread thread;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition released = this.lock.newCondition();

	/** Bytes read and not yet finished with by the decoding thread. */
	private final AtomicLong ahead = new AtomicLong();

	private volatile boolean dropping;

	private @Nullable Batch batch;

	private int next;

	private boolean ended;

	private CopyPrefetch(CopyInput.Source source, String name) {
		this.thread = new Thread(() -> read(source), name);
		this.thread.setDaemon(true);
	}

	/**
	 * Starts reading a copy ahead.
	 * @param source the copy's messages, read only by the new thread until {@link #close}
	 * @param name the reading thread's name
	 * @return the messages, in the order the source gave them
	 */
	static CopyPrefetch start(CopyInput.Source source, String name) {
		CopyPrefetch prefetch = new CopyPrefetch(source, name);
		prefetch.thread.start();
		return prefetch;
	}

	@Override
	public byte @Nullable [] next() throws SQLException {
		Batch current = this.batch;
		if (current != null) {
			if (this.next < current.messages.length) {
				byte[] message = current.messages[this.next];
				current.messages[this.next++] = null;
				return message;
			}
			// Every message of the batch was handed on (the caller holds the last).
			this.batch = null;
			release(current.bytes);
		}
		if (this.ended) {
			return null;
		}
		Object item = take();
		if (item == END) {
			this.ended = true;
			return null;
		}
		if (item instanceof Throwable failure) {
			this.ended = true;
			throw rethrow(failure);
		}
		this.batch = (Batch) item;
		this.next = 0;
		return next();
	}

	/**
	 * Waits until the reading thread has ended, having read the rest of the copy (and
	 * dropped it) when the decoding thread did not take every message; the connection is
	 * the caller's again. Waits through interrupts, which it leaves set: the copy must
	 * end before the connection can be used or rolled back.
	 */
	@Override
	public void close() {
		this.dropping = true;
		this.queue.clear();
		this.batch = null;
		release(0);
		boolean interrupted = false;
		while (this.thread.isAlive()) {
			try {
				this.thread.join();
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Takes the next item, waiting through interrupts as a socket read would (the copy
	 * ends within its chunk; the interrupt stays set for the caller's next wait).
	 */
	private Object take() throws SQLException {
		boolean interrupted = false;
		try {
			while (true) {
				Object item;
				try {
					item = this.queue.poll(WAIT_NANOS, TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					interrupted = true;
					continue;
				}
				if (item != null) {
					return item;
				}
				if (!this.thread.isAlive() && this.queue.isEmpty()) {
					throw new SQLException(
							"The COPY reading thread " + this.thread.getName() + " ended before the end of the copy");
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void release(long bytes) {
		this.ahead.addAndGet(-bytes);
		this.lock.lock();
		try {
			this.released.signal();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** The reading thread's body: every message of the copy, then its end. */
	private void read(CopyInput.Source source) {
		byte[][] filling = new byte[BATCH_MESSAGES][];
		int count = 0;
		long bytes = 0;
		try {
			while (true) {
				if (count > 0 && !roomAhead()) {
					// Hand over what there is before waiting for the decoding thread.
					hand(Batch.of(filling, count, bytes));
					filling = new byte[BATCH_MESSAGES][];
					count = 0;
					bytes = 0;
				}
				awaitRoomAhead();
				byte[] message = source.next();
				if (message == null) {
					break;
				}
				if (this.dropping) {
					continue;
				}
				filling[count++] = message;
				bytes += message.length;
				this.ahead.addAndGet(message.length);
				if (count == BATCH_MESSAGES || bytes >= BATCH_BYTES) {
					hand(Batch.of(filling, count, bytes));
					filling = new byte[BATCH_MESSAGES][];
					count = 0;
					bytes = 0;
				}
			}
			if (count > 0) {
				hand(Batch.of(filling, count, bytes));
			}
			hand(END);
		}
		catch (Throwable failure) {
			// Handed to the decoding thread after the messages read before it, and
			// thrown there as its own; dropped (and said so) only when that thread
			// already gave up on the copy.
			if (this.dropping) {
				logger.debug("Reading the rest of a dropped COPY failed", failure);
			}
			if (count > 0) {
				hand(Batch.of(filling, count, bytes));
			}
			hand(failure);
		}
	}

	private boolean roomAhead() {
		return this.ahead.get() <= AHEAD_BYTES || this.dropping;
	}

	/**
	 * Waits while the decoding thread has not finished with {@value #AHEAD_BYTES} bytes.
	 * Nothing interrupts this thread, which the decoding thread's {@link #close} waits
	 * for; an interrupt is logged and waited through.
	 */
	private void awaitRoomAhead() {
		if (roomAhead()) {
			return;
		}
		this.lock.lock();
		try {
			while (!roomAhead()) {
				try {
					this.released.awaitNanos(WAIT_NANOS);
				}
				catch (InterruptedException ex) {
					logger.debug("COPY reading thread {} interrupted; it reads on", this.thread.getName());
				}
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private void hand(Object item) {
		if (!this.dropping) {
			this.queue.add(item);
		}
	}

	private static SQLException rethrow(Throwable failure) {
		if (failure instanceof SQLException sql) {
			return sql;
		}
		if (failure instanceof RuntimeException runtime) {
			throw runtime;
		}
		if (failure instanceof Error error) {
			throw error;
		}
		return new SQLException("Reading the COPY failed", failure);
	}

	private record Batch(byte[][] messages, long bytes) {

		/**
		 * The first {@code count} messages of {@code filling}, which the batch may own.
		 */
		static Batch of(byte[][] filling, int count, long bytes) {
			return new Batch((count == filling.length) ? filling : Arrays.copyOf(filling, count), bytes);
		}

	}

}
