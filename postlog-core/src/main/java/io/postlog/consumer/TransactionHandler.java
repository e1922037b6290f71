package io.postlog.consumer;

import io.postlog.Transaction;

/**
 * Receives whole transactions, in commit order, on the consumer's delivery thread. Called
 * only for transactions with at least one change; the transaction is buffered in memory,
 * up to the consumer's maximum number of changes per transaction.
 */
@FunctionalInterface
public interface TransactionHandler {

	/**
	 * Handles one transaction.
	 * @param transaction the transaction
	 * @throws Exception to fail the transaction (it is redelivered)
	 */
	void handle(Transaction transaction) throws Exception;

}
