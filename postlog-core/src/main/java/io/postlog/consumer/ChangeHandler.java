package io.postlog.consumer;

import io.postlog.Change;

/**
 * Receives changes one at a time, in commit order and within a transaction in WAL order:
 * on the consumer's delivery thread, or with a {@link Subscription#withConcurrency
 * concurrency} above 1 on one of its lanes, in order per key. A transaction is
 * acknowledged only after its last change has been handled; an exception has the same
 * change retried for this handler alone, with back-off, until the retry policy gives up
 * and the subscription's {@link ErrorHandler} decides.
 */
@FunctionalInterface
public interface ChangeHandler {

	/**
	 * Handles one change.
	 * @param change the change
	 * @throws Exception to have the change retried
	 */
	void handle(Change change) throws Exception;

}
