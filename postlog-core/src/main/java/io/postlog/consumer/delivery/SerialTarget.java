package io.postlog.consumer.delivery;

import java.util.ArrayList;
import java.util.List;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.SchemaChange;
import io.postlog.Transaction;

/**
 * A subscription called on the delivery thread.
 * <p>
 * Internal: public only so the consumer can use it; not part of postlog's API, and it may
 * change in any release.
 */
public final class SerialTarget extends Target {

	private final Runner runner;

	private long changeLsn;

	private int changeIndex = -1;

	private long transactionLsn;

	private long messageLsn;

	private long schemaLsn;

	private int schemaSequence = -1;

	/**
	 * Creates the target of a subscription that runs on the delivery thread.
	 * @param subscription the subscription
	 * @param runner calls its handler
	 */
	public SerialTarget(Recipient subscription, Runner runner) {
		super(subscription);
		this.runner = runner;
	}

	@Override
	public void rewindBefore(Lsn from) {
		long lsn = from.value();
		if (Long.compareUnsigned(this.changeLsn, lsn) >= 0) {
			this.changeLsn = lsn;
			this.changeIndex = -1;
		}
		// A transaction or message at the position itself is delivered again.
		if (Long.compareUnsigned(this.transactionLsn, lsn) >= 0) {
			this.transactionLsn = lsn - 1;
		}
		if (Long.compareUnsigned(this.messageLsn, lsn) >= 0) {
			this.messageLsn = lsn - 1;
		}
		if (Long.compareUnsigned(this.schemaLsn, lsn) >= 0) {
			this.schemaLsn = lsn;
			this.schemaSequence = -1;
		}
	}

	@Override
	public void resetTo(Lsn checkpoint) {
		long lsn = checkpoint.value();
		if (Long.compareUnsigned(this.changeLsn, lsn) > 0) {
			this.changeLsn = lsn;
			this.changeIndex = Integer.MAX_VALUE;
		}
		if (Long.compareUnsigned(this.transactionLsn, lsn) > 0) {
			this.transactionLsn = lsn;
		}
		if (Long.compareUnsigned(this.messageLsn, lsn) > 0) {
			this.messageLsn = lsn;
		}
		if (Long.compareUnsigned(this.schemaLsn, lsn) > 0) {
			this.schemaLsn = lsn;
			this.schemaSequence = Integer.MAX_VALUE;
		}
	}

	@Override
	public long change(Event.ChangeArrived arrived, AckWindow.Entry entry) {
		Change change = arrived.change();
		if (this.subscription.kind() != Recipient.Kind.CHANGE || !after(change, this.changeLsn, this.changeIndex)) {
			return 0;
		}
		long nanos = this.subscription.accepts(change) ? this.runner.change(change, entry) : 0;
		this.changeLsn = change.commitLsn().value();
		this.changeIndex = change.index();
		return nanos;
	}

	@Override
	public long snapshotChange(Event.ChangeArrived arrived, AckWindow.Entry entry) {
		Change change = arrived.change();
		return (this.subscription.kind() == Recipient.Kind.CHANGE && this.subscription.accepts(change))
				? this.runner.change(change, entry) : 0;
	}

	@Override
	public long snapshotCommit(Transaction batch, AckWindow.Entry entry) {
		return (this.subscription.kind() == Recipient.Kind.TRANSACTION) ? deliver(batch, entry) : 0;
	}

	@Override
	public long message(LogicalMessage message, AckWindow.Entry entry) {
		if (this.subscription.kind() != Recipient.Kind.MESSAGE
				|| Long.compareUnsigned(message.lsn().value(), this.messageLsn) <= 0) {
			return 0;
		}
		long nanos = this.runner.message(message, entry);
		this.messageLsn = message.lsn().value();
		return nanos;
	}

	@Override
	public long schema(Event.SchemaChanged changed, AckWindow.Entry entry) {
		SchemaChange schema = changed.schemaChange();
		long lsn = schema.commitLsn().value();
		int order = Long.compareUnsigned(lsn, this.schemaLsn);
		if (!this.subscription.takesSchemaChanges() || order < 0
				|| (order == 0 && changed.sequence() <= this.schemaSequence)) {
			return 0;
		}
		long nanos = this.runner.schema(schema, entry);
		this.schemaLsn = lsn;
		this.schemaSequence = changed.sequence();
		return nanos;
	}

	@Override
	public long commit(Transaction transaction, AckWindow.Entry entry) {
		if (this.subscription.kind() != Recipient.Kind.TRANSACTION
				|| Long.compareUnsigned(transaction.commitLsn().value(), this.transactionLsn) <= 0) {
			return 0;
		}
		long nanos = deliver(transaction, entry);
		this.transactionLsn = transaction.commitLsn().value();
		return nanos;
	}

	/** Calls the handler with the changes it accepts, if there are any. */
	private long deliver(Transaction transaction, AckWindow.Entry entry) {
		List<Change> matching = new ArrayList<>(transaction.changes().size());
		for (Change change : transaction.changes()) {
			if (this.subscription.accepts(change)) {
				matching.add(change);
			}
		}
		if (matching.isEmpty()) {
			return 0;
		}
		Transaction given = (matching.size() == transaction.changes().size()) ? transaction
				: new Transaction(transaction.xid(), transaction.commitLsn(), transaction.endLsn(),
						transaction.commitTime(), transaction.origin(), matching);
		return this.runner.transaction(given, entry);
	}

}
