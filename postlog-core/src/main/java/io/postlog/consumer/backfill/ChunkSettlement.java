package io.postlog.consumer.backfill;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.postlog.consumer.delivery.AckWindow;

/**
 * What the backfill thread ({@link BackfillRunner}) waits for on the stream: the stream
 * running before a chunk is read, a chunk delivered by the {@link BackfillWindow} and
 * finished by every subscription ({@link AckWindow}) within a minute, a chunk already in
 * delivery finishing. Every wait ends early when the runner stops or the consumer ended
 * ({@code FAILED} or {@code STOPPED}). Used on the backfill thread only.
 */
final class ChunkSettlement {

	/** How long a chunk may take to come through the stream before it is redone. */
	private static final Duration CHUNK_TIMEOUT = Duration.ofSeconds(60);

	private final BackfillHost consumer;

	private final AckWindow ackWindow;

	private final BooleanSupplier stopped;

	ChunkSettlement(BackfillHost consumer, AckWindow ackWindow, BooleanSupplier stopped) {
		this.consumer = consumer;
		this.ackWindow = ackWindow;
		this.stopped = stopped;
	}

	/**
	 * Waits until the window delivered the chunk and every subscription finished it,
	 * reporting the rows finished meanwhile.
	 * @param progress updates the backfill's rows done
	 * @return {@code false} if it did not within the timeout (the chunk is dropped), or
	 * the backfill was cancelled or the consumer stops
	 */
	boolean awaitSettled(BackfillJob backfill, OpenChunk chunk, Runnable progress) throws InterruptedException {
		long deadline = System.nanoTime() + CHUNK_TIMEOUT.toNanos();
		boolean delivered = false;
		while (!delivered) {
			progress.run();
			delivered = chunk.awaitDelivered(50, TimeUnit.MILLISECONDS);
			if (!delivered && (this.stopped.getAsBoolean() || backfill.cancelRequested() || ended()
					|| System.nanoTime() - deadline > 0)) {
				if (chunk.abandon()) {
					return false;
				}
			}
		}
		for (int polls = 0; !this.ackWindow.settled(chunk.entries()); polls++) {
			if (this.stopped.getAsBoolean() || ended()) {
				return false;
			}
			if (polls % 20 == 0) {
				progress.run();
			}
			Thread.sleep(5);
		}
		return true;
	}

	/** Waits while the stream does not run. */
	boolean awaitStreaming(BackfillJob backfill) throws InterruptedException {
		while (true) {
			if (this.stopped.getAsBoolean() || backfill.cancelRequested()) {
				return false;
			}
			if (this.consumer.streaming()) {
				return true;
			}
			if (ended()) {
				return false;
			}
			Thread.sleep(50);
		}
	}

	/** Whether the consumer ended: {@code FAILED} or {@code STOPPED}. */
	boolean ended() {
		return this.consumer.ended();
	}

	/**
	 * Waits until a chunk whose delivery began was delivered: the delivery thread
	 * finishes it.
	 */
	void awaitDelivering(OpenChunk chunk) throws InterruptedException {
		while (!chunk.awaitDelivered(50, TimeUnit.MILLISECONDS) && !this.stopped.getAsBoolean() && !ended()) {
			// Delivering: the delivery thread finishes it.
		}
	}

}
