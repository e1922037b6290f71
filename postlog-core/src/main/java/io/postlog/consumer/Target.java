package io.postlog.consumer;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Transaction;

/**
 * Where a subscription's share of the stream goes, with its progress.
 */
abstract class Target {

	final Subscription subscription;

	Target(Subscription subscription) {
		this.subscription = subscription;
	}

	void begin() {
	}

	/**
	 * Forgets the progress from a position on, for a subscription started again.
	 * @param from the first commit LSN to deliver again
	 */
	void rewindBefore(Lsn from) {
	}

	long change(Event.ChangeArrived arrived, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	long message(LogicalMessage message, AckWindow.Entry entry) {
		return 0;
	}

	long commit(Transaction transaction, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	long schema(Event.SchemaChanged changed, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	long snapshotChange(Event.ChangeArrived arrived, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	long snapshotCommit(Transaction batch, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	void awaitIdle() throws InterruptedException {
	}

	void close() {
	}

	/**
	 * Forgets the progress past a checkpoint, after a rolled-back sink transaction.
	 * @param checkpoint the checkpoint
	 */
	void resetTo(Lsn checkpoint) {
	}

	/** Whether a change at this position comes after {@code (lsn, index)}. */
	static boolean after(Change change, long lsn, int index) {
		int order = Long.compareUnsigned(change.commitLsn().value(), lsn);
		return order > 0 || (order == 0 && change.index() > index);
	}

}
