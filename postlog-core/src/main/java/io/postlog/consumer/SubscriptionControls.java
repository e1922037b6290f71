package io.postlog.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.postlog.Lsn;
import io.postlog.consumer.delivery.AckWindow;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SubscriptionControl}s of one consumer, and where the delivery thread applies
 * what they ask for: pauses and stops as a transaction begins, starts between sessions
 * with nothing in flight. While every subscription runs and nothing is asked, the
 * delivery thread pays one volatile read per transaction for them. Also warns of
 * acknowledgements outstanding past a bound. Thread-safe.
 */
final class SubscriptionControls implements SubscriptionControl.Owner {

	private static final Logger logger = LoggerFactory.getLogger(SubscriptionControls.class);

	private final Map<String, SubscriptionControl> controls = new LinkedHashMap<>();

	private final String slotName;

	/**
	 * Whether a subscription can hold a position of its own: not with a transactional
	 * checkpoint store, whose one checkpoint covers every subscription, nor on a
	 * temporary slot, which a new session (the start of a held subscription) would create
	 * anew past it.
	 */
	private final boolean independent;

	/**
	 * Whether a request waits, or a subscription that is not running holds nothing yet.
	 */
	private volatile boolean attention;

	/** Whether a start may wait to be applied. */
	private volatile boolean startWaiting;

	private final ConsumerListener listener;

	SubscriptionControls(List<Subscription> subscriptions, String slotName, boolean independent,
			ConsumerListener listener) {
		this.slotName = slotName;
		this.listener = listener;
		this.independent = independent;
		for (Subscription subscription : subscriptions) {
			this.controls.put(subscription.id(),
					new SubscriptionControl(subscription.id(), subscription.autoStartup(), this));
			this.attention |= !subscription.autoStartup();
		}
	}

	/**
	 * Returns a subscription's control.
	 * @param id the subscription's id
	 * @return the control
	 * @throws IllegalArgumentException if no subscription has that id
	 */
	SubscriptionControl get(String id) {
		SubscriptionControl control = this.controls.get(id);
		if (control == null) {
			throw new IllegalArgumentException("Consumer of slot " + this.slotName + " has no subscription '" + id
					+ "'; its subscriptions are " + this.controls.keySet());
		}
		return control;
	}

	List<SubscriptionControl> all() {
		return List.copyOf(this.controls.values());
	}

	/**
	 * Refuses requests where subscriptions cannot hold positions of their own.
	 * @param id the subscription that asks
	 * @throws IllegalStateException if subscriptions cannot be started and stopped alone
	 */
	@Override
	public void requireIndependent(String id) {
		if (!this.independent) {
			throw new IllegalStateException("Subscription '" + id + "' of slot " + this.slotName + " cannot be "
					+ "started, stopped or paused alone: a transactional checkpoint store keeps one position for "
					+ "every subscription, and a temporary slot keeps none across sessions; stop the consumer "
					+ "instead");
		}
	}

	@Override
	public boolean independent() {
		return this.independent;
	}

	/**
	 * Takes note of a request, after the control recorded it.
	 */
	@Override
	public void requested() {
		this.attention = true;
		this.startWaiting = true;
	}

	/**
	 * On the delivery thread, as a transaction, a non-transactional message or a batch of
	 * rows begins.
	 * @param position its commit LSN
	 * @param window the window
	 */
	void atBoundary(Lsn position, AckWindow window) {
		if (!this.attention) {
			return;
		}
		// Cleared first: a request made meanwhile sets it again.
		this.attention = false;
		for (SubscriptionControl control : this.controls.values()) {
			SubscriptionState before = control.state();
			control.atBoundary(position, window);
			if (control.state() != before) {
				logger.info("Subscription '{}' of slot {} is {} at {}; the slot is confirmed no further until it "
						+ "runs again", control.id(), this.slotName, control.state(), position);
				changed(control, before, null);
			}
		}
	}

	/**
	 * Tells the listener of a move.
	 * @param control the subscription that moved
	 * @param previous the state it left
	 * @param cause the failure behind it, or {@code null}
	 */
	@Override
	public void changed(SubscriptionControl control, SubscriptionState previous, @Nullable Throwable cause) {
		// Guarded once, where the configuration is made (GuardedConsumerListener).
		this.listener.subscriptionStateChanged(control, previous, cause);
	}

	/**
	 * Returns whether a start waits to be applied, so that the session should end as soon
	 * as nothing is in flight.
	 * @return whether one waits
	 */
	boolean startWaiting() {
		if (!this.startWaiting) {
			return false;
		}
		for (SubscriptionControl control : this.controls.values()) {
			if (control.startRequested()) {
				return true;
			}
		}
		this.startWaiting = false;
		return false;
	}

	/**
	 * Between sessions, with nothing in flight: starts every subscription asked to start.
	 * @param window the window
	 * @return the started subscriptions' ids with the positions they resume at (a
	 * subscription that held nothing is not listed)
	 */
	Map<String, Lsn> applyStarts(AckWindow window) {
		Map<String, Lsn> started = new LinkedHashMap<>();
		this.startWaiting = false;
		for (SubscriptionControl control : this.controls.values()) {
			SubscriptionState before = control.state();
			Lsn from = control.applyStart(window);
			if (control.state() != before) {
				logger.info("Subscription '{}' of slot {} runs again{}", control.id(), this.slotName,
						(from != null) ? " from " + from : "");
				changed(control, before, null);
			}
			if (from != null) {
				started.put(control.id(), from);
			}
		}
		return started;
	}

	/**
	 * Warns once of each acknowledgement outstanding past the bound.
	 * @param bound the bound
	 * @param maxUnacknowledged the most transactions in flight, for the message
	 * @param warned the acknowledgements warned of already, pruned here
	 */
	void warnStalls(Duration bound, int maxUnacknowledged, List<PendingAcknowledgment> warned) {
		Instant now = Instant.now();
		List<PendingAcknowledgment> still = new ArrayList<>();
		for (SubscriptionControl control : this.controls.values()) {
			PendingAcknowledgment oldest = control.oldestUnacknowledged();
			if (oldest == null || oldest.age(now).compareTo(bound) < 0) {
				continue;
			}
			still.add(oldest);
			control.stalled(oldest);
			if (!warned.contains(oldest)) {
				logger.warn(
						"Subscription '{}' of slot {} has not acknowledged {} (commit LSN {}) for {} s; the slot is "
								+ "confirmed no further, and delivery waits once {} transactions are unacknowledged",
						control.id(), this.slotName,
						(oldest.changeId() != null) ? "change " + oldest.changeId() : "its transaction",
						oldest.commitLsn(), oldest.age(now).toSeconds(), maxUnacknowledged);
			}
		}
		warned.clear();
		warned.addAll(still);
	}

	/**
	 * Names the subscriptions holding acknowledgements, for the stop's last words.
	 * @return one text per subscription with the oldest change id, empty when none
	 */
	List<String> outstanding() {
		List<String> holding = new ArrayList<>();
		for (SubscriptionControl control : this.controls.values()) {
			PendingAcknowledgment oldest = control.oldestUnacknowledged();
			if (oldest != null) {
				holding.add("'" + control.id() + "' (oldest: "
						+ ((oldest.changeId() != null) ? "change " + oldest.changeId() : "transaction") + " at "
						+ oldest.commitLsn() + ")");
			}
		}
		return holding;
	}

}
