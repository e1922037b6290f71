package io.postlog.consumer;

import io.postlog.ReplicationConsumerException;

/**
 * A subscription the consumer's checkpoint store cannot serve: a transactional store
 * needs every handler to run serially on the delivery thread and be done when it returns,
 * so a subscription on lanes, one that acknowledges itself, or one that does not start
 * with the consumer is refused when the consumer is built.
 */
public class IncompatibleSubscriptionException extends ReplicationConsumerException {

	private static final long serialVersionUID = 1L;

	private final String subscriptionId;

	private final int concurrency;

	private final boolean acknowledging;

	private final String store;

	IncompatibleSubscriptionException(Subscription subscription, CheckpointStore store) {
		super("Subscription '" + subscription.id() + "' "
				+ ((subscription.concurrency() > 1) ? "runs on " + subscription.concurrency() + " lanes"
						: subscription.acknowledging() ? "acknowledges itself" : "does not start with the consumer")
				+ ", which a transactional checkpoint store (" + store + ") cannot allow: "
				+ "each source transaction must be handled, serially and completely, by every subscription inside "
				+ "one sink transaction; use concurrency 1 without an Acknowledgment, started with the consumer, or "
				+ "the slot-only store");
		this.subscriptionId = subscription.id();
		this.concurrency = subscription.concurrency();
		this.acknowledging = subscription.acknowledging();
		this.store = String.valueOf(store);
	}

	/**
	 * Returns the refused subscription's id.
	 * @return the id
	 */
	public String subscriptionId() {
		return this.subscriptionId;
	}

	/**
	 * Returns the refused subscription's number of lanes.
	 * @return the concurrency, above 1 when that is why it was refused
	 */
	public int concurrency() {
		return this.concurrency;
	}

	/**
	 * Returns whether the refused subscription acknowledges itself.
	 * @return {@code true} when it takes an {@link io.postlog.Acknowledgment}
	 */
	public boolean acknowledging() {
		return this.acknowledging;
	}

	/**
	 * Returns the checkpoint store that refused it, as it describes itself.
	 * @return the store's description
	 */
	public String store() {
		return this.store;
	}

}
