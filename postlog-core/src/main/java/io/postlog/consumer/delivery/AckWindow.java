package io.postlog.consumer.delivery;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

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
 * {@link Acknowledgment} handed out before the reconnect still counts.
 * <p>
 * A subscription that is not running (stopped by its error handler or a request, paused,
 * or not started) holds the window at its position: the acknowledged position is the
 * lower of the complete prefix's end (the <em>delivered</em> position, which the other
 * subscriptions have passed) and every hold, so the slot keeps what it has not been
 * given. When it starts again with nothing in flight, the delivered position goes back to
 * its hold, and the transactions from there are delivered again, to it alone (the others
 * skip them by their own progress). The acknowledged position never moves backwards.
 * Thread-safe.
 * <p>
 * Internal: public only so the consumer and its other rooms can use it; not part of
 * postlog's API, and it may change in any release.
 */
public final class AckWindow {

	private static final Logger logger = LoggerFactory.getLogger(AckWindow.class);

	private final Deque<Entry> entries = new ArrayDeque<>();

	private final Consumer<Lsn> listener;

	private final String slotName;

	/** The end of the longest complete prefix, or a keepalive position while idle. */
	private volatile long delivered;

	/** The lower of {@link #delivered} and every hold: what may be acknowledged. */
	private volatile long acked;

	private final Map<WindowMarks<?>, Long> holds = new IdentityHashMap<>();

	private final PositionWaiters waiters = new PositionWaiters(() -> this.acked);

	/**
	 * Creates an empty window.
	 * @param listener told each time the acknowledged position moves, outside the
	 * window's lock
	 * @param slotName the slot, for log lines
	 */
	public AckWindow(Consumer<Lsn> listener, String slotName) {
		this.listener = listener;
		this.slotName = slotName;
	}

	/**
	 * Returns the acknowledgeable position.
	 * @return the position, {@link Lsn#INVALID} before anything was acknowledged or known
	 */
	public Lsn acked() {
		return Lsn.of(this.acked);
	}

	/**
	 * Waits until the acknowledgeable position is at or past a target.
	 * @param target the position
	 * @param timeoutNanos how long to wait at most
	 * @return whether it got there in time
	 * @throws InterruptedException if interrupted
	 */
	public boolean awaitAcked(Lsn target, long timeoutNanos) throws InterruptedException {
		return this.waiters.await(target.value(), timeoutNanos);
	}

	/**
	 * Returns the end of the longest complete prefix: where the running subscriptions
	 * are, whatever a subscription that is not running holds.
	 * @return the position
	 */
	public Lsn delivered() {
		return Lsn.of(this.delivered);
	}

	/**
	 * Sets the position the slot had when this consumer took it over, without telling the
	 * listener; never moves backwards. A hold below it is raised to it: what the slot is
	 * past will not come again.
	 * @param lsn the slot's confirmed position
	 */
	public synchronized void baseline(Lsn lsn) {
		if (Long.compareUnsigned(lsn.value(), this.delivered) > 0) {
			this.delivered = lsn.value();
		}
		for (Map.Entry<WindowMarks<?>, Long> hold : this.holds.entrySet()) {
			if (Long.compareUnsigned(hold.getValue(), lsn.value()) < 0) {
				hold.setValue(lsn.value());
				hold.getKey().held(lsn.value());
			}
		}
		recompute();
		// Transactions the slot is already past will not come again.
		this.entries.removeIf((entry) -> entry.endLsn != null && !entry.endLsn.isAfter(lsn));
	}

	/**
	 * Returns how many transactions are in flight.
	 * @return the count
	 */
	public synchronized int size() {
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
	public synchronized Entry begin(Lsn commitLsn) {
		return open(commitLsn, true);
	}

	/**
	 * Opens the entry of a non-transactional message, which stands on its own between
	 * transactions.
	 * @param lsn the message's LSN
	 * @return the entry
	 */
	public synchronized Entry message(Lsn lsn) {
		return open(lsn, false);
	}

	/**
	 * Opens the entry of a batch of initial snapshot rows. Every batch gets an entry of
	 * its own: they all share the consistent point as their commit LSN, and none is sent
	 * again.
	 * @param consistentPoint the snapshot's consistent point
	 * @return the entry
	 */
	public synchronized Entry snapshot(Lsn consistentPoint) {
		Entry entry = new Entry(consistentPoint, true);
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
		Entry entry = new Entry(commitLsn, false);
		this.entries.add(entry);
		return entry;
	}

	/**
	 * Holds the acknowledged position at or below a subscription's position (the lower of
	 * this and an earlier hold of it), never below what was acknowledged already.
	 * @param marks the marks of the subscription that is not running
	 * @param position the commit LSN of the first transaction (or the LSN of the first
	 * non-transactional message) it has not finished: it is streamed again from there
	 * @return the hold
	 */
	public synchronized Lsn hold(WindowMarks<?> marks, Lsn position) {
		long lsn = position.value();
		if (Long.compareUnsigned(lsn, this.acked) < 0) {
			lsn = this.acked;
		}
		Long earlier = this.holds.get(marks);
		if (earlier != null && Long.compareUnsigned(earlier, lsn) < 0) {
			lsn = earlier;
		}
		this.holds.put(marks, lsn);
		marks.held(lsn);
		recompute();
		return Lsn.of(lsn);
	}

	/**
	 * Releases a subscription's hold to start it again; only while nothing is in flight,
	 * since the delivered position goes back to the hold, and the transactions from there
	 * are opened again in commit order.
	 * @param marks the subscription's marks
	 * @return its hold, or {@code null} if it had none
	 * @throws IllegalStateException if transactions are in flight
	 */
	public synchronized @Nullable Lsn unhold(WindowMarks<?> marks) {
		if (!this.entries.isEmpty()) {
			throw new IllegalStateException("A subscription is started again only while nothing is in flight");
		}
		Long hold = this.holds.remove(marks);
		if (hold == null) {
			return null;
		}
		if (Long.compareUnsigned(hold, this.delivered) < 0) {
			this.delivered = hold;
		}
		recompute();
		return Lsn.of(hold);
	}

	/**
	 * Recomputes the acknowledged position from the delivered position and the holds.
	 * @return whether it moved
	 */
	private boolean recompute() {
		long floor = this.delivered;
		for (long hold : this.holds.values()) {
			if (Long.compareUnsigned(hold, floor) < 0) {
				floor = hold;
			}
		}
		if (floor == this.acked) {
			return false;
		}
		this.acked = floor;
		this.waiters.moved();
		return true;
	}

	/**
	 * Marks that the delivery thread has handed the whole transaction to every
	 * subscription; it completes when nothing else holds it. Calling it again for a
	 * transaction sent again does nothing.
	 * @param entry the entry
	 * @param endLsn the transaction's end LSN
	 */
	public void dispatched(Entry entry, Lsn endLsn) {
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
	public synchronized void forget(java.util.Collection<Entry> forgotten) {
		this.entries.removeAll(forgotten);
		notifyAll();
	}

	/**
	 * Forgets the entries of an initial snapshot that was not handed over: it is taken
	 * again, with a consistent point of its own, and whatever of it is still held no
	 * longer counts.
	 * @param consistentPoint the snapshot's consistent point
	 */
	public synchronized void forgetSnapshot(Lsn consistentPoint) {
		this.entries.removeIf((entry) -> entry.commitLsn.equals(consistentPoint));
		notifyAll();
	}

	/**
	 * Returns whether entries have left the window: acknowledged, every one before them
	 * too.
	 * @param settling the entries
	 * @return whether none of them is in flight
	 */
	public synchronized boolean settled(java.util.Collection<Entry> settling) {
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
	public synchronized void hold(Entry entry) {
		entry.holds++;
	}

	/**
	 * Releases one hold; completes the entry when it was the last one and the transaction
	 * was dispatched, and moves the acknowledged position over the complete prefix.
	 * @param entry the entry
	 */
	public void release(Entry entry) {
		Lsn moved;
		synchronized (this) {
			entry.holds--;
			moved = advance();
			if (moved != null) {
				notifyAll();
			}
		}
		if (moved != null) {
			this.listener.accept(moved);
		}
	}

	/**
	 * Hands out an acknowledgement for an entry: the entry is held until it is
	 * acknowledged.
	 * @param entry the entry
	 * @return the acknowledgement
	 */
	public Acknowledgment acknowledgment(Entry entry) {
		hold(entry);
		AtomicBoolean done = new AtomicBoolean();
		return () -> {
			if (done.compareAndSet(false, true)) {
				release(entry);
			}
		};
	}

	/**
	 * Hands out an acknowledgement for an entry that a subscription's marks track while
	 * it is outstanding.
	 * @param entry the entry
	 * @param marks the subscription's marks
	 * @param pending what it is for
	 * @return the acknowledgement
	 */
	public <P> Acknowledgment acknowledgment(Entry entry, WindowMarks<P> marks, P pending) {
		hold(entry);
		marks.handedOut(pending);
		AtomicBoolean done = new AtomicBoolean();
		return () -> {
			if (done.compareAndSet(false, true)) {
				marks.acknowledged(pending);
				release(entry);
			}
		};
	}

	/**
	 * Acknowledges the server's keepalive position when no transaction is in flight.
	 * @param lsn the position
	 * @return {@code true} if the position moved
	 */
	public boolean advanceIdle(Lsn lsn) {
		Lsn moved;
		synchronized (this) {
			if (!this.entries.isEmpty() || Long.compareUnsigned(lsn.value(), this.delivered) <= 0) {
				return false;
			}
			this.delivered = lsn.value();
			if (!recompute()) {
				return false;
			}
			moved = Lsn.of(this.acked);
		}
		this.listener.accept(moved);
		return true;
	}

	/**
	 * Waits while {@code limit} or more transactions are in flight.
	 * @param limit the most transactions in flight
	 * @param giveUp checked between waits; when it says so the wait ends early
	 * @throws InterruptedException if interrupted
	 */
	public synchronized void awaitBelow(int limit, BooleanSupplier giveUp) throws InterruptedException {
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
	public synchronized boolean awaitEmpty(long deadlineNanos) throws InterruptedException {
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
		Entry head;
		while ((head = this.entries.peek()) != null && head.complete()) {
			this.entries.poll();
			if (Long.compareUnsigned(head.endLsn.value(), this.delivered) > 0) {
				this.delivered = head.endLsn.value();
			}
		}
		return recompute() ? Lsn.of(this.acked) : null;
	}

	/**
	 * One transaction in flight. Its fields are guarded by the window.
	 */
	public static final class Entry {

		/** The commit LSN of its transaction, or the position of its rows. */
		public final Lsn commitLsn;

		/**
		 * Whether this is a batch of initial snapshot or backfill rows, which the stream
		 * never sends again.
		 */
		public final boolean rows;

		@Nullable Lsn endLsn;

		/** The delivery thread's own hold, released by {@link AckWindow#dispatched}. */
		int holds = 1;

		Entry(Lsn commitLsn, boolean rows) {
			this.commitLsn = commitLsn;
			this.rows = rows;
		}

		boolean complete() {
			return this.endLsn != null && this.holds <= 0;
		}

	}

}
