package io.postlog.consumer.delivery;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToLongFunction;

import org.jspecify.annotations.Nullable;

/**
 * A bounded queue between two threads, bounded both by count and by the bytes its items
 * stand for, so that read-ahead of large rows stays within memory: an item is refused
 * while the queue holds {@code maxItems}, or while it holds anything and the item would
 * take it past {@code maxBytes} (an item larger than {@code maxBytes} passes alone).
 * Counts what went in and what the taker reported done, so the putting side can tell when
 * everything it handed over was processed. Thread-safe.
 * <p>
 * Internal: public only so the consumer can use it; not part of postlog's API, and it may
 * change in any release.
 *
 * @param <T> the item type
 */
public final class HandOff<T> {

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition notEmpty = this.lock.newCondition();

	private final Condition notFull = this.lock.newCondition();

	private final Deque<T> items = new ArrayDeque<>();

	private final int maxItems;

	private final long maxBytes;

	private final ToLongFunction<T> sizes;

	private long bytes;

	private long added;

	private long done;

	/**
	 * Whether the taker waits for the queue to fill: written under the lock, read
	 * without.
	 */
	private volatile boolean takerWaiting;

	public HandOff(int maxItems, long maxBytes, ToLongFunction<T> sizes) {
		this.maxItems = maxItems;
		this.maxBytes = maxBytes;
		this.sizes = sizes;
	}

	/**
	 * Moves items from the head of {@code pending} into the queue while they fit, without
	 * waiting.
	 * @param pending the items to hand over, in order; those moved are removed
	 * @return whether all of them moved
	 */
	public boolean offerAll(Deque<T> pending) {
		this.lock.lock();
		try {
			boolean moved = false;
			T item;
			while ((item = pending.peek()) != null && fits(item)) {
				pending.poll();
				push(item);
				moved = true;
			}
			if (moved) {
				this.notEmpty.signal();
			}
			return pending.isEmpty();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Puts an item, waiting while it does not fit.
	 * @param item the item
	 * @param timeout the longest wait
	 * @param unit the unit of the wait
	 * @return whether the item was put
	 * @throws InterruptedException if interrupted while waiting
	 */
	public boolean offer(T item, long timeout, TimeUnit unit) throws InterruptedException {
		long nanos = unit.toNanos(timeout);
		this.lock.lock();
		try {
			while (!fits(item)) {
				if (nanos <= 0) {
					return false;
				}
				nanos = this.notFull.awaitNanos(nanos);
			}
			push(item);
			this.notEmpty.signal();
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits until the queue may take more (or the time is up).
	 * @param timeout the longest wait
	 * @param unit its unit
	 * @throws InterruptedException if interrupted while waiting
	 */
	public void awaitRoom(long timeout, TimeUnit unit) throws InterruptedException {
		long nanos = unit.toNanos(timeout);
		this.lock.lock();
		try {
			while (nanos > 0 && isFull()) {
				nanos = this.notFull.awaitNanos(nanos);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Takes up to {@code max} items, waiting at most {@code timeout} for the first.
	 * @param into where the items go, in order
	 * @param max the most items to take
	 * @param timeout the longest wait
	 * @param unit its unit
	 * @return how many were taken
	 * @throws InterruptedException if interrupted while waiting
	 */
	public int drainTo(Collection<T> into, int max, long timeout, TimeUnit unit) throws InterruptedException {
		long nanos = unit.toNanos(timeout);
		this.lock.lock();
		try {
			while (this.items.isEmpty()) {
				if (nanos <= 0) {
					return 0;
				}
				nanos = awaitNotEmpty(nanos);
			}
			int taken = 0;
			T item;
			while (taken < max && (item = this.items.poll()) != null) {
				this.bytes -= this.sizes.applyAsLong(item);
				into.add(item);
				taken++;
			}
			this.notFull.signalAll();
			return taken;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Takes one item, waiting at most {@code timeout}.
	 * @param timeout the longest wait
	 * @param unit its unit
	 * @return the item, or {@code null} if none came
	 * @throws InterruptedException if interrupted while waiting
	 */
	public @Nullable T poll(long timeout, TimeUnit unit) throws InterruptedException {
		long nanos = unit.toNanos(timeout);
		this.lock.lock();
		try {
			while (this.items.isEmpty()) {
				if (nanos <= 0) {
					return null;
				}
				nanos = awaitNotEmpty(nanos);
			}
			T item = this.items.poll();
			this.bytes -= this.sizes.applyAsLong(item);
			this.notFull.signalAll();
			return item;
		}
		finally {
			this.lock.unlock();
		}
	}

	private long awaitNotEmpty(long nanos) throws InterruptedException {
		this.takerWaiting = true;
		try {
			return this.notEmpty.awaitNanos(nanos);
		}
		finally {
			this.takerWaiting = false;
		}
	}

	/**
	 * Returns whether the taker is waiting for an item right now, so that the putting
	 * side can hand over at once what it would otherwise gather into a larger batch. A
	 * hint: it may change as soon as it is read.
	 * @return {@code true} while the taker waits on an empty queue
	 */
	public boolean takerWaiting() {
		return this.takerWaiting;
	}

	/**
	 * Reports items taken earlier as processed.
	 * @param count how many
	 */
	public void done(int count) {
		this.lock.lock();
		try {
			this.done += count;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Returns whether every item ever put was taken and reported done.
	 * @return {@code true} if nothing is queued or in processing
	 */
	public boolean settled() {
		this.lock.lock();
		try {
			return this.added == this.done;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Returns whether the queue holds nothing.
	 * @return {@code true} if empty
	 */
	public boolean isEmpty() {
		this.lock.lock();
		try {
			return this.items.isEmpty();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Returns how many more items fit, counting only the item bound.
	 * @return the remaining capacity
	 */
	public int remainingCapacity() {
		this.lock.lock();
		try {
			return this.maxItems - this.items.size();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Returns how many more payload bytes fit.
	 * @return the remaining bytes, never negative
	 */
	public long remainingBytes() {
		this.lock.lock();
		try {
			return Math.max(0, this.maxBytes - this.bytes);
		}
		finally {
			this.lock.unlock();
		}
	}

	private boolean isFull() {
		return this.items.size() >= this.maxItems || (!this.items.isEmpty() && this.bytes >= this.maxBytes);
	}

	private boolean fits(T item) {
		if (this.items.size() >= this.maxItems) {
			return false;
		}
		return this.items.isEmpty() || this.bytes + this.sizes.applyAsLong(item) <= this.maxBytes;
	}

	private void push(T item) {
		this.items.add(item);
		this.bytes += this.sizes.applyAsLong(item);
		this.added++;
	}

}
