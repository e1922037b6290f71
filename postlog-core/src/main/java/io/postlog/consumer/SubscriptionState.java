package io.postlog.consumer;

/**
 * Whether one subscription of a {@link ReplicationConsumer} is being called
 * ({@link SubscriptionControl}). A subscription that is not {@code RUNNING} holds the
 * slot at its own position: the consumer confirms no further than the first transaction
 * it has not finished, so nothing is lost for it, while the other subscriptions go on.
 */
public enum SubscriptionState {

	/** Called with every change, transaction or message it takes. */
	RUNNING,

	/**
	 * Paused by a request; {@link SubscriptionControl#resume()} goes on from its
	 * position.
	 */
	PAUSED,

	/**
	 * Stopped by a request, by its error handler after its retries ran out (with the
	 * cause), or never started ({@link Subscription#withAutoStartup(boolean)});
	 * {@link SubscriptionControl#start()} goes on from its position.
	 */
	STOPPED

}
