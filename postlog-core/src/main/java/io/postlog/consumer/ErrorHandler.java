package io.postlog.consumer;

/**
 * Decides what becomes of a change (transaction, message) a subscription's handler kept
 * failing on once its retries ran out. Returning skips it for that subscription alone:
 * delivery goes on and the slot may move past it. Throwing stops that subscription alone
 * ({@link SubscriptionState#STOPPED}, with the failure as its
 * {@link SubscriptionControl#cause() cause}): the other subscriptions go on, and the slot
 * is confirmed no further than the failed transaction, which the subscription receives
 * again when it is started. Throwing fails the whole consumer ({@code FAILED}) instead
 * where one subscription cannot hold a position of its own: with a transactional
 * {@link CheckpointStore} (one checkpoint for every subscription), on a temporary slot
 * (which keeps no position across sessions), and for rows of an initial snapshot or a
 * backfill (which the stream does not send again). Called on the thread that ran the
 * handler, once per exhausted change.
 */
@FunctionalInterface
public interface ErrorHandler {

	/** Stops the subscription: the default. */
	ErrorHandler STOP = (failure) -> {
		throw failure;
	};

	/**
	 * Handles a failure whose retries ran out.
	 * @param failure what failed, with the handler's exception as cause
	 * @throws Exception to stop the subscription
	 */
	void handle(HandlerFailedException failure) throws Exception;

}
