package io.postlog.consumer;

import java.time.Instant;

import io.postlog.Lsn;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.WindowMarks;
import org.jspecify.annotations.Nullable;

/**
 * Starts, stops, pauses and resumes one subscription of a {@link ReplicationConsumer}
 * while the others go on, as Spring for Apache Kafka's listener containers do, and tells
 * its state. A subscription that is not running holds the slot at its position (the
 * commit LSN of the first transaction it has not finished), so the slot keeps every
 * change it was not given; started again, it receives them from there, once, and the
 * other subscriptions are not called again for them in this process.
 * <p>
 * A pause or stop takes effect between transactions: the transaction in delivery is
 * finished first. A start takes effect once nothing is in flight (every acknowledgement
 * handed out given): the consumer then streams again from the held position, without a
 * back-off. Requests made before {@link ReplicationConsumer#start()} apply from the first
 * transaction. Rows of an initial snapshot or a backfill are not kept for a subscription
 * that is not running while they are delivered. With a transactional
 * {@link CheckpointStore}, whose one checkpoint covers every subscription, and on a
 * temporary slot, which keeps no position across sessions, requests are refused with an
 * {@link IllegalStateException}. Thread-safe: every method may be called from any thread.
 */
public final class SubscriptionControl {

	private final String id;

	private final Owner owner;

	private volatile SubscriptionState state;

	/**
	 * Whether the handler is called: changed only by the delivery thread or a failure.
	 */
	private volatile boolean delivering;

	/** The window's hold and the acknowledgements outstanding. */
	private final WindowMarks<PendingAcknowledgment> marks = new WindowMarks<>();

	private volatile @Nullable Throwable cause;

	private volatile @Nullable SubscriptionState requested;

	/** The outstanding acknowledgement last warned of, past the bound. */
	private volatile @Nullable PendingAcknowledgment stalled;

	SubscriptionControl(String id, boolean autoStartup, Owner owner) {
		this.id = id;
		this.owner = owner;
		this.delivering = autoStartup;
		this.state = autoStartup ? SubscriptionState.RUNNING : SubscriptionState.STOPPED;
	}

	/**
	 * Returns the subscription's id.
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

	/**
	 * Returns the state.
	 * @return the state
	 */
	public SubscriptionState state() {
		return this.state;
	}

	/**
	 * Returns why the subscription stopped when its error handler stopped it: a
	 * {@link HandlerFailedException} naming what it failed on, with the handler's
	 * exception as its cause.
	 * @return the failure, or {@code null} when running, paused or stopped by a request
	 */
	public @Nullable Throwable cause() {
		return this.cause;
	}

	/**
	 * Returns where a subscription that is not running resumes: the slot is confirmed no
	 * further.
	 * @return the position, or {@code null} while running, or before the first
	 * transaction it was not given
	 */
	public @Nullable Lsn position() {
		long held = this.marks.hold();
		return (!this.delivering && held != -1) ? Lsn.of(held) : null;
	}

	/**
	 * Returns the oldest acknowledgement handed to this subscription and not yet given.
	 * @return it, or {@code null} when none is outstanding
	 */
	public @Nullable PendingAcknowledgment oldestUnacknowledged() {
		return this.marks.oldest();
	}

	/**
	 * Returns the acknowledgement this subscription has held past the consumer's bound
	 * ({@code unacknowledgedWarning}), if it is still outstanding: delivery stalls on it.
	 * @return it, or {@code null}
	 */
	public @Nullable PendingAcknowledgment stalled() {
		PendingAcknowledgment warned = this.stalled;
		return (warned != null && warned == this.marks.oldest()) ? warned : null;
	}

	void stalled(PendingAcknowledgment pending) {
		this.stalled = pending;
	}

	/**
	 * Asks for a subscription that is stopped or paused to be called again, from its
	 * position. Does nothing while it runs.
	 */
	public void start() {
		request(SubscriptionState.RUNNING);
	}

	/**
	 * Asks for the subscription to stop after the transaction in delivery. Does nothing
	 * while it is stopped.
	 */
	public void stop() {
		request(SubscriptionState.STOPPED);
	}

	/**
	 * Asks for the subscription to pause after the transaction in delivery: as a stop,
	 * reported as {@code PAUSED}.
	 */
	public void pause() {
		request(SubscriptionState.PAUSED);
	}

	/**
	 * Asks for a paused subscription to go on from its position; a stopped one stays
	 * stopped (use {@link #start()}).
	 */
	public void resume() {
		if (this.state == SubscriptionState.PAUSED) {
			request(SubscriptionState.RUNNING);
		}
	}

	private void request(SubscriptionState target) {
		this.owner.requireIndependent(this.id);
		this.requested = target;
		this.owner.requested();
	}

	/**
	 * Returns whether the handler is skipped for what is at this position: the
	 * subscription is not running and the position is at or past its hold (or it holds
	 * nothing yet), so the slot keeps it for later.
	 * @param lsn the commit LSN of a transaction (a message's LSN)
	 * @return whether to skip
	 */
	boolean skips(Lsn lsn) {
		if (this.delivering) {
			return false;
		}
		long held = this.marks.hold();
		return held == -1 || Long.compareUnsigned(lsn.value(), held) >= 0;
	}

	boolean delivering() {
		return this.delivering;
	}

	/**
	 * Returns whether this subscription can hold a position of its own, and so stop
	 * alone.
	 * @return {@code false} with a transactional checkpoint store or a temporary slot
	 */
	boolean independent() {
		return this.owner.independent();
	}

	WindowMarks<PendingAcknowledgment> marks() {
		return this.marks;
	}

	/**
	 * Stops the subscription because its error handler gave up on what it failed on.
	 * @param failure the failure
	 * @param position where what failed begins
	 * @param window the window to hold
	 */
	void failed(HandlerFailedException failure, Lsn position, AckWindow window) {
		SubscriptionState previous;
		synchronized (this) {
			window.hold(this.marks, position);
			previous = this.state;
			this.cause = failure;
			this.delivering = false;
			this.state = SubscriptionState.STOPPED;
			this.requested = null;
		}
		this.owner.changed(this, previous, failure);
	}

	/**
	 * On the delivery thread, as a transaction (or a message, or a batch of rows) begins:
	 * applies a pause or stop, and holds the window for a subscription that is not
	 * running and holds nothing yet.
	 * @param position the commit LSN of what begins
	 * @param window the window
	 * @return whether a start waits to be applied
	 */
	synchronized boolean atBoundary(Lsn position, AckWindow window) {
		SubscriptionState target = this.requested;
		if (target == SubscriptionState.PAUSED || target == SubscriptionState.STOPPED) {
			this.requested = null;
			if (this.delivering) {
				window.hold(this.marks, position);
				this.delivering = false;
				this.cause = null;
			}
			this.state = target;
		}
		if (!this.delivering && this.marks.hold() == -1) {
			window.hold(this.marks, position);
		}
		return this.requested == SubscriptionState.RUNNING && !this.delivering;
	}

	/**
	 * On the delivery thread between sessions, with nothing in flight: applies a start.
	 * @param window the window, whose hold is released
	 * @return the position the subscription resumes at, or {@code null} if no start was
	 * applied (or it held nothing)
	 */
	synchronized @Nullable Lsn applyStart(AckWindow window) {
		if (this.requested != SubscriptionState.RUNNING) {
			return null;
		}
		this.requested = null;
		if (this.delivering) {
			return null;
		}
		Lsn from = window.unhold(this.marks);
		this.marks.released();
		this.cause = null;
		this.delivering = true;
		this.state = SubscriptionState.RUNNING;
		return from;
	}

	boolean startRequested() {
		return this.requested == SubscriptionState.RUNNING && !this.delivering;
	}

	boolean stopOrPauseRequested() {
		SubscriptionState target = this.requested;
		return target == SubscriptionState.PAUSED || target == SubscriptionState.STOPPED;
	}

	PendingAcknowledgment pending(Lsn commitLsn, @Nullable String changeId) {
		return new PendingAcknowledgment(this.id, commitLsn, changeId, Instant.now());
	}

	@Override
	public String toString() {
		return "SubscriptionControl[" + this.id + ", " + this.state + "]";
	}

	/**
	 * What a control reports to and asks of the consumer's set of controls.
	 */
	interface Owner {

		/**
		 * Refuses requests where subscriptions cannot hold positions of their own.
		 * @param id the subscription that asks
		 * @throws IllegalStateException if subscriptions cannot be started and stopped
		 * alone
		 */
		void requireIndependent(String id);

		/**
		 * Returns whether each subscription holds a position of its own.
		 * @return {@code true} if subscriptions can stop and start alone
		 */
		boolean independent();

		/**
		 * Takes note of a request, after the control recorded it.
		 */
		void requested();

		/**
		 * Tells the listener of a move.
		 * @param control the subscription that moved
		 * @param previous the state it left
		 * @param cause the failure behind it, or {@code null}
		 */
		void changed(SubscriptionControl control, SubscriptionState previous, @Nullable Throwable cause);

	}

}
