package io.postlog.consumer;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;

import io.postlog.Lsn;
import io.postlog.admin.ConnectionLostException;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.Event;
import io.postlog.consumer.delivery.HandOff;
import io.postlog.stream.LogicalStream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reader thread of one session, and the one owner of standby status: it owns the
 * stream, decodes payloads into events and hands them to the delivery thread, and it
 * alone decides when the server hears from the consumer.
 * <ul>
 * <li>A moved acknowledgement reaches the server within about 200 ms, not only at the
 * status interval, so that a crash redelivers little.</li>
 * <li>Every status update asks the server to answer, and one goes out at least every
 * {@link #pingNanos ping interval}; when the socket has carried nothing back for
 * {@link #livenessNanos} while the reader was reading, the connection is taken for dead
 * (a half-open connection sends nothing, ever).</li>
 * <li>While the hand-off is full it stops reading but keeps sending status, so a slow
 * handler does not make the server drop the connection.</li>
 * <li>When nothing is open, queued or in flight it acknowledges the server's keepalive
 * position, so an idle slot does not retain WAL.</li>
 * <li>A committed streamed transaction the assembler holds is passed on completely,
 * within the hand-off's room like anything read, before the stream is read again; status
 * goes out meanwhile as above.</li>
 * </ul>
 * A call that hangs inside the stream (a stall in the middle of a message) is seen by the
 * consumer's watchdog through {@link #stuckNanos(long)}, which breaks the connection.
 * Sends a last status and closes the assembler and the stream when it ends; a failure
 * ends it and is kept for the delivery thread.
 */
final class StreamReader implements Runnable {

	private static final Logger logger = LoggerFactory.getLogger(StreamReader.class);

	private static final Duration POLL = Duration.ofMillis(100);

	private static final long ACK_STATUS_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

	private static final long MAX_PING_NANOS = TimeUnit.SECONDS.toNanos(5);

	private static final long MIN_PING_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/** What a silent connection is judged by when the server has no timeout. */
	private static final long DEFAULT_SERVER_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

	/** How long a batch waits for the next message of an open transaction. */
	private static final Duration NEXT_MESSAGE = Duration.ofMillis(1);

	/** The most events read ahead before they are handed over. */
	private static final int BATCH_EVENTS = 256;

	/** The longest a batch is read before it is handed over. */
	private static final long BATCH_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

	private final String slotName;

	private final LogicalStream stream;

	private final MessageAssembler assembler;

	private final HandOff<Event> handOff;

	private final AckWindow window;

	private final long blockedStatusNanos;

	private final long pingNanos;

	private final long livenessNanos;

	private volatile boolean stopRequested;

	private volatile @Nullable Throwable failure;

	private volatile long callStartedNanos;

	private volatile boolean caughtUp;

	/** Whether the last batch ended because the stream had nothing more. */
	private boolean drained;

	private long applied;

	private boolean acknowledgementUnsent;

	private long lastStatusNanos = System.nanoTime();

	private long lastBytes = -1;

	private long lastHeardNanos = System.nanoTime();

	StreamReader(String slotName, LogicalStream stream, MessageAssembler assembler, HandOff<Event> handOff,
			AckWindow window, Duration statusInterval) {
		this.slotName = slotName;
		this.stream = stream;
		this.assembler = assembler;
		this.handOff = handOff;
		this.window = window;
		long serverTimeout = stream.serverTimeout().isZero() ? DEFAULT_SERVER_TIMEOUT_NANOS
				: stream.serverTimeout().toNanos();
		// wal_sender_timeout can be far shorter than the status interval and keepalive
		// requests cannot be seen while the socket is not read, so report often.
		this.blockedStatusNanos = Math.min(statusInterval.toNanos(), TimeUnit.SECONDS.toNanos(1));
		this.pingNanos = Math.max(MIN_PING_NANOS,
				Math.min(statusInterval.toNanos(), Math.min(MAX_PING_NANOS, serverTimeout / 3)));
		this.livenessNanos = serverTimeout + this.pingNanos;
	}

	/**
	 * Returns how long a connection may carry nothing back before it is taken for dead,
	 * which is also how long one call may hang.
	 * @return the bound
	 */
	Duration liveness() {
		return Duration.ofNanos(this.livenessNanos);
	}

	@Override
	public void run() {
		Deque<Event> pending = new ArrayDeque<>();
		try {
			while (!this.stopRequested) {
				reportAcknowledged();
				if (!pending.isEmpty()) {
					// When the stream had nothing behind this batch, the delivery
					// thread may take "nothing more" for an answer once it has it.
					this.caughtUp = this.drained;
					if (!this.handOff.offerAll(pending)) {
						waitForRoom();
					}
					continue;
				}
				if (this.assembler.hasBuffered()) {
					passOnBuffered(pending);
					continue;
				}
				// Behind: something was already there when the reader looked. Caught up:
				// it had to wait, and what arrives meanwhile is news, not a backlog.
				ByteBuffer payload = read(Duration.ZERO);
				if (payload != null) {
					this.caughtUp = false;
				}
				else {
					this.caughtUp = true;
					payload = read(POLL);
				}
				if (payload != null) {
					gather(payload, pending);
				}
				else {
					acknowledgeIdle();
				}
				checkLiveness();
			}
			reportAcknowledged();
			sendStatus();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Throwable ex) {
			Throwable hung = this.failure;
			if (hung != null) {
				hung.addSuppressed(ex);
			}
			else {
				this.failure = ex;
			}
		}
		finally {
			closeQuietly();
		}
	}

	/**
	 * Passes on the next part of a committed streamed transaction, no more than the
	 * hand-off has room for, as reading does.
	 */
	private void passOnBuffered(Deque<Event> pending) throws InterruptedException {
		int maxEvents = Math.min(BATCH_EVENTS, this.handOff.remainingCapacity());
		if (maxEvents <= 0) {
			waitForRoom();
			return;
		}
		this.assembler.assembleBuffered(pending, maxEvents, this.handOff.remainingBytes());
		// The socket is not read while a transaction is passed on, so its silence says
		// nothing; status still goes out at the ping interval.
		this.lastHeardNanos = System.nanoTime();
	}

	private void waitForRoom() throws InterruptedException {
		this.handOff.awaitRoom(POLL.toMillis(), TimeUnit.MILLISECONDS);
		long now = System.nanoTime();
		if (now - this.lastStatusNanos >= this.blockedStatusNanos) {
			sendStatus();
		}
		// The socket is not read while delivery is behind, so its silence says nothing.
		this.lastHeardNanos = now;
	}

	private @Nullable ByteBuffer read(Duration timeout) {
		this.callStartedNanos = System.nanoTime();
		try {
			return this.stream.read(timeout);
		}
		finally {
			this.callStartedNanos = 0;
		}
	}

	private void sendStatus() {
		this.callStartedNanos = System.nanoTime();
		try {
			this.stream.sendStatus();
		}
		finally {
			this.callStartedNanos = 0;
		}
		this.lastStatusNanos = System.nanoTime();
		this.acknowledgementUnsent = false;
	}

	/**
	 * Assembles a payload and gathers what has already arrived behind it, so that a busy
	 * delivery thread takes a batch at a time instead of waking once per event. Bounded
	 * by the hand-off's room and by {@link #BATCH_NANOS}, so that a steady trickle is not
	 * held back. A waiting delivery thread gets each transaction as soon as its commit is
	 * read, before the reader looks for more; inside a transaction the batch waits a
	 * moment for the next message, which the server sends right behind the last one.
	 * Notes whether the stream ran dry, which {@link #caughtUp()} reports once the batch
	 * is handed over; a batch handed over at its commit leaves that to the next look.
	 */
	private void gather(ByteBuffer first, Deque<Event> pending) {
		this.drained = false;
		long bytes = first.remaining();
		assemble(first, pending);
		long batchStart = System.nanoTime();
		int maxEvents = Math.min(BATCH_EVENTS, this.handOff.remainingCapacity());
		long maxBytes = this.handOff.remainingBytes();
		while (pending.size() < maxEvents && bytes < maxBytes && System.nanoTime() - batchStart < BATCH_NANOS
				&& !this.assembler.hasBuffered()) {
			boolean complete = !this.assembler.inTransaction();
			if (complete && pending.peekLast() instanceof Event.Commit && this.handOff.takerWaiting()) {
				// Not even a look behind the commit: the server's keepalive usually
				// comes right after it, and reading it would come first.
				return;
			}
			ByteBuffer payload = read(complete ? Duration.ZERO : NEXT_MESSAGE);
			if (payload == null) {
				this.drained = complete;
				return;
			}
			bytes += payload.remaining();
			assemble(payload, pending);
		}
	}

	private void assemble(ByteBuffer payload, Deque<Event> pending) {
		pending.addAll(this.assembler.assemble(payload));
	}

	private void reportAcknowledged() {
		long acked = this.window.acked().value();
		if (acked != this.applied) {
			this.stream.acknowledge(Lsn.of(acked));
			this.applied = acked;
			this.acknowledgementUnsent = true;
		}
		long now = System.nanoTime();
		if ((this.acknowledgementUnsent && now - this.lastStatusNanos >= ACK_STATUS_NANOS)
				|| now - this.lastStatusNanos >= this.pingNanos) {
			sendStatus();
		}
	}

	private void acknowledgeIdle() {
		if (this.assembler.inTransaction() || !this.handOff.settled()) {
			return;
		}
		Lsn received = this.stream.lastReceiveLsn();
		if (received.isValid() && this.window.advanceIdle(received)) {
			reportAcknowledged();
		}
	}

	private void checkLiveness() {
		long bytes = this.stream.bytesReceived();
		if (bytes < 0) {
			return;
		}
		long now = System.nanoTime();
		if (bytes != this.lastBytes) {
			this.lastBytes = bytes;
			this.lastHeardNanos = now;
			return;
		}
		if (now - this.lastHeardNanos > this.livenessNanos && this.lastStatusNanos > this.lastHeardNanos) {
			throw new ConnectionLostException(
					"The replication connection of slot '" + this.slotName + "' carried nothing back for "
							+ TimeUnit.NANOSECONDS.toMillis(now - this.lastHeardNanos)
							+ " ms although the server was asked to answer (the bound is wal_sender_timeout plus the "
							+ TimeUnit.NANOSECONDS.toMillis(this.pingNanos) + " ms ping interval); taking it for dead",
					null);
		}
	}

	/**
	 * Returns whether the reader is caught up with the stream: it last found the stream
	 * empty and has at most one new arrival in hand, so that the delivery thread can tell
	 * "nothing more is waiting" from a backlog being read (which an open sink transaction
	 * waits for). Right after a transaction was handed over at its commit it is
	 * {@code false} until the reader looked again, a few microseconds later. A hint: data
	 * may arrive at any moment.
	 * @return {@code true} unless the reader is working through a backlog
	 */
	boolean caughtUp() {
		return this.caughtUp;
	}

	/**
	 * Returns how long the reader has been inside one call to the stream.
	 * @param now the current {@link System#nanoTime()}
	 * @return the nanoseconds, or {@code 0} when it is not in a call
	 */
	long stuckNanos(long now) {
		long started = this.callStartedNanos;
		return (started != 0) ? now - started : 0;
	}

	/**
	 * Breaks the connection so that a hung call fails; the reader then ends with that
	 * failure, which names the bound.
	 */
	void abort() {
		if (this.failure == null) {
			this.failure = new ConnectionLostException("A call on the replication connection of slot '" + this.slotName
					+ "' hung for more than " + liveness().toMillis()
					+ " ms (wal_sender_timeout plus the ping interval); breaking the connection", null);
		}
		this.stream.abort();
	}

	private void closeQuietly() {
		try {
			this.assembler.close();
		}
		catch (RuntimeException ex) {
			logger.warn("Releasing the buffered transactions of slot {} failed: {}", this.slotName,
					Failures.describe(ex));
		}
		try {
			this.stream.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Closing the replication stream failed: {}", ex.getClass().getName());
		}
	}

	void stop() {
		this.stopRequested = true;
	}

	/**
	 * Returns why the reader ended early, or {@code null}.
	 * @return the failure
	 */
	@Nullable Throwable failure() {
		return this.failure;
	}

}
