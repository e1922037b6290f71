package io.postlog.consumer.delivery;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The one way a consumer's threads are asked to stop: a flag every loop checks and every
 * wait wakes for. Interrupts are not used to stop; a handler's interrupt flag is cleared
 * and reported instead. Thread-safe.
 * <p>
 * Internal: public only so the consumer can use it; not part of postlog's API, and it may
 * change in any release.
 */
public final class StopSignal {

	private final CountDownLatch signal = new CountDownLatch(1);

	private volatile long deadlineNanos;

	/**
	 * Asks to stop, giving the transaction in delivery until the deadline.
	 * @param timeout how long delivery may go on finishing what it holds
	 */
	public void request(Duration timeout) {
		if (this.signal.getCount() > 0) {
			this.deadlineNanos = System.nanoTime() + timeout.toNanos();
			this.signal.countDown();
		}
	}

	public boolean requested() {
		return this.signal.getCount() == 0;
	}

	/**
	 * Returns whether a stop was asked for and its grace period is over.
	 * @return {@code true} once delivery must give up
	 */
	public boolean overdue() {
		return requested() && System.nanoTime() - this.deadlineNanos > 0;
	}

	public long deadlineNanos() {
		return this.deadlineNanos;
	}

	/**
	 * Waits, unless a stop is asked for first.
	 * @param duration how long
	 * @return {@code true} if the wait ran out without a stop request
	 */
	public boolean pause(Duration duration) {
		try {
			return !this.signal.await(Math.max(0, duration.toMillis()), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * A stop request ended a wait: what was being delivered stays unacknowledged.
	 */
	public static final class StopRequested extends RuntimeException {

		private static final long serialVersionUID = 1L;

		public StopRequested() {
			super("stop requested", null, false, false);
		}

	}

}
