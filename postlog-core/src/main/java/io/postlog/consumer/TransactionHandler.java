package io.postlog.consumer;

import io.postlog.Transaction;

/**
 * Receives whole transactions, in commit order, on the consumer's delivery thread. Called
 * only for transactions with at least one change; the transaction is buffered in memory,
 * up to the consumer's maximum number of changes per transaction. An exception has the
 * transaction retried for this handler alone, with back-off, until the retry policy gives
 * up and the subscription's {@link ErrorHandler} decides.
 */
@FunctionalInterface
public interface TransactionHandler {

	/**
	 * Handles one transaction.
	 * @param transaction the transaction
	 * @throws Exception to have the transaction retried for this handler alone
	 */
	void handle(Transaction transaction) throws Exception;

}
