package io.postlog.consumer.delivery;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.SchemaChange;
import io.postlog.Transaction;

/**
 * Calls one subscription's handler with one item, retrying it and deciding on its failure
 * as the consumer was configured; returns once the item is handled or skipped. Not
 * thread-safe: one runner per thread (the delivery thread, or one lane).
 * <p>
 * Internal: public only so the consumer can implement it; not part of postlog's API, and
 * it may change in any release.
 */
public interface Runner {

	/**
	 * Calls a change handler until it succeeds or is skipped.
	 * @param change the change
	 * @param entry its transaction's window entry
	 * @return how long the successful call took in nanoseconds, 0 when skipped
	 * @throws StopSignal.StopRequested if a stop ended a wait between attempts
	 */
	long change(Change change, AckWindow.Entry entry);

	/**
	 * Calls a transaction handler until it succeeds or is skipped.
	 * @param transaction the transaction, with the changes the subscription accepts
	 * @param entry its window entry
	 * @return how long the successful call took in nanoseconds, 0 when skipped
	 * @throws StopSignal.StopRequested if a stop ended a wait between attempts
	 */
	long transaction(Transaction transaction, AckWindow.Entry entry);

	/**
	 * Calls a message handler until it succeeds or is skipped.
	 * @param message the message
	 * @param entry its window entry
	 * @return how long the successful call took in nanoseconds, 0 when skipped
	 * @throws StopSignal.StopRequested if a stop ended a wait between attempts
	 */
	long message(LogicalMessage message, AckWindow.Entry entry);

	/**
	 * Calls the schema handler until it succeeds or is skipped.
	 * @param schema the schema change
	 * @param entry its transaction's window entry
	 * @return how long the successful call took in nanoseconds, 0 when skipped
	 * @throws StopSignal.StopRequested if a stop ended a wait between attempts
	 */
	long schema(SchemaChange schema, AckWindow.Entry entry);

}
