package io.postlog.consumer.delivery;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Transaction;

/**
 * Where a subscription's share of the stream goes, with its progress. Used by the
 * delivery thread alone.
 * <p>
 * Internal: public only so the consumer's dispatcher can use it; not part of postlog's
 * API, and it may change in any release.
 */
public abstract class Target {

	final Recipient subscription;

	Target(Recipient subscription) {
		this.subscription = subscription;
	}

	/**
	 * Returns the id of the subscription it delivers to.
	 * @return the id
	 */
	public String subscriptionId() {
		return this.subscription.id();
	}

	public void begin() {
	}

	/**
	 * Forgets the progress from a position on, for a subscription started again.
	 * @param from the first commit LSN to deliver again
	 */
	public void rewindBefore(Lsn from) {
	}

	public long change(Event.ChangeArrived arrived, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	public long message(LogicalMessage message, AckWindow.Entry entry) {
		return 0;
	}

	public long commit(Transaction transaction, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	public long schema(Event.SchemaChanged changed, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	public long snapshotChange(Event.ChangeArrived arrived, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	public long snapshotCommit(Transaction batch, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	public void awaitIdle() throws InterruptedException {
	}

	public void close() {
	}

	/**
	 * Forgets the progress past a checkpoint, after a rolled-back sink transaction.
	 * @param checkpoint the checkpoint
	 */
	public void resetTo(Lsn checkpoint) {
	}

	/** Whether a change at this position comes after {@code (lsn, index)}. */
	static boolean after(Change change, long lsn, int index) {
		int order = Long.compareUnsigned(change.commitLsn().value(), lsn);
		return order > 0 || (order == 0 && change.index() > index);
	}

}
