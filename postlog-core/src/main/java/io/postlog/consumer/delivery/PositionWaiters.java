package io.postlog.consumer.delivery;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Threads waiting for a position that only the delivery side moves: each move wakes them
 * to look again. A move costs one volatile read while nobody waits. Thread-safe; the lock
 * is its own, so a waiter never holds up the window that moves the position.
 */
final class PositionWaiters {

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition moved = this.lock.newCondition();

	private final AtomicInteger waiting = new AtomicInteger();

	private final LongSupplier position;

	PositionWaiters(LongSupplier position) {
		this.position = position;
	}

	/** Wakes the waiters after the position moved. */
	void moved() {
		if (this.waiting.get() == 0) {
			return;
		}
		this.lock.lock();
		try {
			this.moved.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits until the position is at or past a target (unsigned order, as LSNs compare).
	 * @param target the position to reach
	 * @param timeoutNanos how long to wait at most
	 * @return whether it was reached
	 * @throws InterruptedException if interrupted while waiting
	 */
	boolean await(long target, long timeoutNanos) throws InterruptedException {
		if (reached(target)) {
			return true;
		}
		long remaining = timeoutNanos;
		this.waiting.incrementAndGet();
		this.lock.lock();
		try {
			while (!reached(target)) {
				if (remaining <= 0) {
					return false;
				}
				// No wake-up is lost: the count goes up before the look, and a mover that
				// sees it signals under the lock this thread holds until it waits.
				remaining = this.moved.awaitNanos(remaining);
			}
			return true;
		}
		finally {
			this.lock.unlock();
			this.waiting.decrementAndGet();
		}
	}

	private boolean reached(long target) {
		return Long.compareUnsigned(this.position.getAsLong(), target) >= 0;
	}

}
