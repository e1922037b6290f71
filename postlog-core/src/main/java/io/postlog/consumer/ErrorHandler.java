package io.postlog.consumer;

/**
 * Decides what becomes of a change (transaction, message) a subscription's handler kept
 * failing on once its retries ran out. Returning skips it for that subscription alone:
 * delivery goes on and the slot may move past it. Throwing fails the consumer
 * ({@code FAILED}): nothing past the failed transaction is acknowledged. Called on the
 * thread that ran the handler, once per exhausted change.
 */
@FunctionalInterface
public interface ErrorHandler {

	/** Fails the consumer: the default. */
	ErrorHandler STOP = (failure) -> {
		throw failure;
	};

	/**
	 * Handles a failure whose retries ran out.
	 * @param failure what failed, with the handler's exception as cause
	 * @throws Exception to fail the consumer
	 */
	void handle(HandlerFailedException failure) throws Exception;

}
