package io.postlog.consumer;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.Lsn;
import io.postlog.stream.LogicalStream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reader thread of one session: owns the stream, decodes payloads into events and
 * hands them to the delivery thread through a bounded queue. While the queue is full it
 * stops reading but keeps sending standby status updates, so a slow handler does not make
 * the server drop the connection; it tells the server the acknowledged position within
 * about 200 ms of its moving (not only at the status interval); and when nothing is open
 * or undelivered it acknowledges the server's keepalive position so an idle slot does not
 * retain WAL. Sends a last status and closes the stream when it ends.
 */
final class StreamReader implements Runnable {

	private static final Logger logger = LoggerFactory.getLogger(StreamReader.class);

	private static final Duration POLL = Duration.ofMillis(100);

	/**
	 * How soon a moved acknowledgement reaches the server, at the latest: much sooner
	 * than the status interval, so that a crash redelivers little, yet at most a few
	 * status messages a second however fast transactions are acknowledged.
	 */
	private static final long ACK_STATUS_NANOS = Duration.ofMillis(200).toNanos();

	/** The most events read ahead before they are handed over. */
	private static final int BATCH_EVENTS = 256;

	/** The longest a batch is read before it is handed over. */
	private static final long BATCH_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

	private final LogicalStream stream;

	private final MessageAssembler assembler;

	private final BlockingQueue<Event> queue;

	private final AckPosition acks;

	private final long blockedStatusNanos;

	private final AtomicLong enqueued = new AtomicLong();

	private final AtomicLong delivered = new AtomicLong();

	private volatile boolean stopRequested;

	private volatile @Nullable Throwable failure;

	private long applied;

	private boolean acknowledgementUnsent;

	private long lastAcknowledgementStatus = System.nanoTime();

	StreamReader(LogicalStream stream, MessageAssembler assembler, BlockingQueue<Event> queue, AckPosition acks,
			Duration statusInterval) {
		this.stream = stream;
		this.assembler = assembler;
		this.queue = queue;
		this.acks = acks;
		// wal_sender_timeout can be far shorter than the status interval and keepalive
		// requests cannot be seen while the socket is not read, so report often.
		this.blockedStatusNanos = Math.min(statusInterval.toNanos(), Duration.ofSeconds(1).toNanos());
	}

	@Override
	public void run() {
		Deque<Event> pending = new ArrayDeque<>();
		long lastBlockedStatus = System.nanoTime();
		try {
			while (!this.stopRequested) {
				applyAcknowledged();
				if (!pending.isEmpty()) {
					if (handOff(pending)) {
						lastBlockedStatus = System.nanoTime();
						continue;
					}
					if (this.queue.offer(pending.peek(), POLL.toMillis(), TimeUnit.MILLISECONDS)) {
						pending.poll();
						this.enqueued.incrementAndGet();
						lastBlockedStatus = System.nanoTime();
					}
					else if (System.nanoTime() - lastBlockedStatus >= this.blockedStatusNanos) {
						this.stream.sendStatus();
						lastBlockedStatus = System.nanoTime();
					}
					continue;
				}
				ByteBuffer payload = this.stream.read(POLL);
				if (payload != null) {
					assemble(payload, pending);
					// Hand over what has already arrived together: the delivery thread
					// then wakes once per batch, not once per event. No more than the
					// queue takes, so read-ahead stays bounded by its capacity, and for
					// no longer than BATCH_NANOS, so that a steady trickle of messages
					// is not held back until a batch fills.
					long batchStart = System.nanoTime();
					while (pending.size() < Math.min(BATCH_EVENTS, this.queue.remainingCapacity())
							&& System.nanoTime() - batchStart < BATCH_NANOS
							&& (payload = this.stream.read(Duration.ZERO)) != null) {
						assemble(payload, pending);
					}
				}
				if (pending.isEmpty()) {
					acknowledgeIdle();
				}
			}
			applyAcknowledged();
			this.stream.sendStatus();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Throwable ex) {
			this.failure = ex;
		}
		finally {
			closeQuietly();
		}
	}

	/**
	 * Moves as many pending events to the queue as fit without waiting.
	 * @return whether all of them fitted
	 */
	private boolean handOff(Deque<Event> pending) {
		Event event;
		while ((event = pending.peek()) != null && this.queue.offer(event)) {
			pending.poll();
			this.enqueued.incrementAndGet();
		}
		return pending.isEmpty();
	}

	private void assemble(ByteBuffer payload, Deque<Event> pending) {
		pending.addAll(this.assembler.assemble(payload));
	}

	private void applyAcknowledged() {
		long acked = this.acks.get().value();
		if (acked != this.applied) {
			this.stream.acknowledge(Lsn.of(acked));
			this.applied = acked;
			this.acknowledgementUnsent = true;
		}
		if (this.acknowledgementUnsent && System.nanoTime() - this.lastAcknowledgementStatus >= ACK_STATUS_NANOS) {
			this.stream.sendStatus();
			this.lastAcknowledgementStatus = System.nanoTime();
			this.acknowledgementUnsent = false;
		}
	}

	private void acknowledgeIdle() {
		if (this.assembler.inTransaction() || this.enqueued.get() != this.delivered.get()) {
			return;
		}
		Lsn received = this.stream.lastReceiveLsn();
		if (received.isValid() && this.acks.advance(received)) {
			applyAcknowledged();
		}
	}

	private void closeQuietly() {
		try {
			this.stream.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Closing the replication stream failed: {}", ex.getClass().getName());
		}
	}

	/**
	 * Called by the delivery thread after it has delivered an event taken from the queue.
	 */
	void delivered() {
		this.delivered.incrementAndGet();
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
