package io.postlog.consumer;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import io.postlog.Acknowledgment;
import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of what may be acknowledged: an in-flight window of transactions in
 * commit order. A transaction is complete when the delivery thread has dispatched all of
 * it to every subscription, every lane finished its part, and every
 * {@link Acknowledgment} handed out for it was acknowledged; the acknowledgeable position
 * is the end LSN of the longest complete prefix, and it never moves backwards. While the
 * window is empty, the server's keepalive position may be acknowledged instead (delivery
 * contract, clause 4). The window outlives sessions: after a reconnect the server sends
 * the unacknowledged transactions again and they find their entries, so an
 * {@link Acknowledgment} handed out before the reconnect still counts. Thread-safe.
 */
final class AckWindow {

	private static final Logger logger = LoggerFactory.getLogger(AckWindow.class);

	private final Deque<Entry> entries = new ArrayDeque<>();

	private final ConsumerListener listener;

	private final String slotName;

	private volatile long acked;

	AckWindow(ConsumerListener listener, String slotName) {
		this.listener = listener;
		this.slotName = slotName;
	}

	/**
	 * Returns the acknowledgeable position.
	 * @return the position, {@link Lsn#INVALID} before anything was acknowledged or known
	 */
	Lsn acked() {
		return Lsn.of(this.acked);
	}

	/**
	 * Sets the position the slot had when this consumer took it over, without telling the
	 * listener; never moves backwards.
	 * @param lsn the slot's confirmed position
	 */
	synchronized void baseline(Lsn lsn) {
		if (Long.compareUnsigned(lsn.value(), this.acked) > 0) {
			this.acked = lsn.value();
		}
		// Transactions the slot is already past will not come again.
		this.entries.removeIf((entry) -> entry.endLsn != null && !entry.endLsn.isAfter(lsn));
	}

	/**
	 * Returns how many transactions are in flight.
	 * @return the count
	 */
	synchronized int size() {
		return this.entries.size();
	}

	/**
	 * Opens (or, for a transaction sent again after a reconnect, finds) the entry of a
	 * transaction, held by the delivery thread until {@link #dispatched}. Entries of
	 * transactions that began earlier and never committed are dropped: the server sends
	 * transactions in commit order, so they will not come again.
	 * @param commitLsn the transaction's commit LSN
	 * @return the entry
	 */
	synchronized Entry begin(Lsn commitLsn) {
		return open(commitLsn, true);
	}

	/**
	 * Opens the entry of a non-transactional message, which stands on its own between
	 * transactions.
	 * @param lsn the message's LSN
	 * @return the entry
	 */
	synchronized Entry message(Lsn lsn) {
		return open(lsn, false);
	}

	/**
	 * Opens the entry of a batch of initial snapshot rows. Every batch gets an entry of
	 * its own: they all share the consistent point as their commit LSN, and none is sent
	 * again.
	 * @param consistentPoint the snapshot's consistent point
	 * @return the entry
	 */
	synchronized Entry snapshot(Lsn consistentPoint) {
		Entry entry = new Entry(consistentPoint);
		this.entries.add(entry);
		return entry;
	}

	private Entry open(Lsn commitLsn, boolean dropUnfinished) {
		Iterator<Entry> iterator = this.entries.iterator();
		while (iterator.hasNext()) {
			Entry entry = iterator.next();
			if (entry.commitLsn.equals(commitLsn)) {
				return entry;
			}
			if (dropUnfinished && entry.endLsn == null && entry.commitLsn.isBefore(commitLsn)) {
				logger.debug("Slot {}: transaction with commit LSN {} was not sent again after a reconnect; "
						+ "forgetting it", this.slotName, entry.commitLsn);
				iterator.remove();
			}
		}
		Entry entry = new Entry(commitLsn);
		this.entries.add(entry);
		return entry;
	}

	/**
	 * Marks that the delivery thread has handed the whole transaction to every
	 * subscription; it completes when nothing else holds it. Calling it again for a
	 * transaction sent again does nothing.
	 * @param entry the entry
	 * @param endLsn the transaction's end LSN
	 */
	void dispatched(Entry entry, Lsn endLsn) {
		synchronized (this) {
			if (entry.endLsn != null) {
				return;
			}
			entry.endLsn = endLsn;
		}
		release(entry);
	}

	/**
	 * Forgets entries whose work was rolled back: the server sends their transactions
	 * again and they are opened anew.
	 * @param forgotten the entries
	 */
	synchronized void forget(java.util.Collection<Entry> forgotten) {
		this.entries.removeAll(forgotten);
		notifyAll();
	}

	/**
	 * Forgets the entries of an initial snapshot that was not handed over: it is taken
	 * again, with a consistent point of its own, and whatever of it is still held no
	 * longer counts.
	 * @param consistentPoint the snapshot's consistent point
	 */
	synchronized void forgetSnapshot(Lsn consistentPoint) {
		this.entries.removeIf((entry) -> entry.commitLsn.equals(consistentPoint));
		notifyAll();
	}

	/**
	 * Returns whether entries have left the window: acknowledged, every one before them
	 * too.
	 * @param settling the entries
	 * @return whether none of them is in flight
	 */
	synchronized boolean settled(java.util.Collection<Entry> settling) {
		for (Entry entry : settling) {
			if (this.entries.contains(entry)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Adds a hold to an entry, released by {@link #release}.
	 * @param entry the entry
	 */
	synchronized void hold(Entry entry) {
		entry.holds++;
	}

	/**
	 * Releases one hold; completes the entry when it was the last one and the transaction
	 * was dispatched, and moves the acknowledged position over the complete prefix.
	 * @param entry the entry
	 */
	void release(Entry entry) {
		Lsn moved;
		synchronized (this) {
			entry.holds--;
			moved = advance();
			if (moved != null) {
				notifyAll();
			}
		}
		if (moved != null) {
			this.listener.acknowledged(moved);
		}
	}

	/**
	 * Hands out an acknowledgement for an entry: the entry is held until it is
	 * acknowledged.
	 * @param entry the entry
	 * @return the acknowledgement
	 */
	Acknowledgment acknowledgment(Entry entry) {
		hold(entry);
		AtomicBoolean done = new AtomicBoolean();
		return () -> {
			if (done.compareAndSet(false, true)) {
				release(entry);
			}
		};
	}

	/**
	 * Acknowledges the server's keepalive position when no transaction is in flight.
	 * @param lsn the position
	 * @return {@code true} if the position moved
	 */
	boolean advanceIdle(Lsn lsn) {
		synchronized (this) {
			if (!this.entries.isEmpty() || Long.compareUnsigned(lsn.value(), this.acked) <= 0) {
				return false;
			}
			this.acked = lsn.value();
		}
		this.listener.acknowledged(lsn);
		return true;
	}

	/**
	 * Waits while {@code limit} or more transactions are in flight.
	 * @param limit the most transactions in flight
	 * @param giveUp checked between waits; when it says so the wait ends early
	 * @throws InterruptedException if interrupted
	 */
	synchronized void awaitBelow(int limit, BooleanSupplier giveUp) throws InterruptedException {
		while (this.entries.size() >= limit && !giveUp.getAsBoolean()) {
			wait(TimeUnit.MILLISECONDS.toMillis(50));
		}
	}

	/**
	 * Waits until nothing is in flight, or the deadline passes.
	 * @param deadlineNanos the {@link System#nanoTime()} to stop waiting at
	 * @return whether the window emptied
	 * @throws InterruptedException if interrupted
	 */
	synchronized boolean awaitEmpty(long deadlineNanos) throws InterruptedException {
		while (!this.entries.isEmpty()) {
			long remaining = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
			if (remaining <= 0) {
				return false;
			}
			wait(Math.min(remaining, 50));
		}
		return true;
	}

	private @Nullable Lsn advance() {
		Lsn moved = null;
		Entry head;
		while ((head = this.entries.peek()) != null && head.complete()) {
			this.entries.poll();
			if (Long.compareUnsigned(head.endLsn.value(), this.acked) > 0) {
				this.acked = head.endLsn.value();
				moved = head.endLsn;
			}
		}
		return moved;
	}

	/**
	 * One transaction in flight. Its fields are guarded by the window.
	 */
	static final class Entry {

		final Lsn commitLsn;

		@Nullable Lsn endLsn;

		/** The delivery thread's own hold, released by {@link AckWindow#dispatched}. */
		int holds = 1;

		Entry(Lsn commitLsn) {
			this.commitLsn = commitLsn;
		}

		boolean complete() {
			return this.endLsn != null && this.holds <= 0;
		}

	}

}
