package io.postlog.consumer.delivery;

import java.time.Duration;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Transaction;

/**
 * The consumer as its {@link Dispatcher} sees it: the limits it was configured with, the
 * masks applied before any subscription sees a change, the subscriptions' controls at a
 * transaction's boundary, the observer, and how a failure is told without a handler's own
 * message. Called on the delivery thread.
 * <p>
 * Internal: public only so the consumer can implement it; not part of postlog's API, and
 * it may change in any release.
 */
public interface DispatchHost {

	/**
	 * Returns the name of the consumer's slot, for log lines.
	 * @return the slot's name
	 */
	String slotName();

	/**
	 * Returns the most transactions (and snapshot batches) in the window at once.
	 * @return the limit
	 */
	int maxUnacknowledged();

	/**
	 * Returns the most changes a transaction handler can be given at once.
	 * @return the limit
	 */
	int maxTransactionChanges();

	/**
	 * Returns after how many source transactions a sink transaction commits.
	 * @return the batch
	 */
	int checkpointBatch();

	/**
	 * Returns after how long an open sink transaction commits.
	 * @return the delay
	 */
	Duration checkpointBatchDelay();

	/**
	 * Applies the column masks to a change before any target sees it.
	 * @param arrived the change as it arrived
	 * @return the change masked, or {@code arrived} itself when no mask applies
	 */
	Event.ChangeArrived mask(Event.ChangeArrived arrived);

	/**
	 * Lets the subscriptions' controls act at a transaction's boundary (a subscription
	 * started or stopped between transactions).
	 * @param position the commit LSN of the transaction about to be delivered
	 * @param window the acknowledgement window
	 */
	void atBoundary(Lsn position, AckWindow window);

	/**
	 * Tells the observer a change was delivered.
	 * @param change the change
	 * @param handlerTime the time its handlers took
	 */
	void changeDelivered(Change change, Duration handlerTime);

	/**
	 * Tells the observer a transaction was delivered.
	 * @param transaction the transaction
	 * @param handlerTime the time its handlers took
	 */
	void transactionDelivered(Transaction transaction, Duration handlerTime);

	/**
	 * Describes a failure without a handler's own message, which may quote row values.
	 * @param failure the failure
	 * @return the description
	 */
	String describe(Throwable failure);

}
