package io.postlog.consumer;

import io.postlog.Acknowledgment;
import io.postlog.Transaction;

/**
 * Receives transactions as a {@link TransactionHandler} does, and owns their
 * acknowledgement: the slot moves past a transaction only after the
 * {@link Acknowledgment} given with it was acknowledged, which may happen later and on
 * any thread.
 */
@FunctionalInterface
public interface AcknowledgingTransactionHandler {

	/**
	 * Handles one transaction.
	 * @param transaction the transaction
	 * @param acknowledgment to acknowledge once the transaction's effect is safe
	 * @throws Exception to have the transaction retried (the acknowledgement of the
	 * failed attempt is then no longer waited for)
	 */
	void handle(Transaction transaction, Acknowledgment acknowledgment) throws Exception;

}
