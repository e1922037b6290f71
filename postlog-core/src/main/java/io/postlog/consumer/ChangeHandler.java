package io.postlog.consumer;

import io.postlog.Change;

/**
 * Receives changes one at a time, in commit order and within a transaction in WAL order,
 * on the consumer's delivery thread. A transaction is acknowledged only after its last
 * change has been handled; an exception fails the transaction, which is then retried from
 * its first change.
 */
@FunctionalInterface
public interface ChangeHandler {

	/**
	 * Handles one change.
	 * @param change the change
	 * @throws Exception to fail the transaction (it is redelivered)
	 */
	void handle(Change change) throws Exception;

}
