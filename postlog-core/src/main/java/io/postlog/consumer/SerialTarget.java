package io.postlog.consumer;

import java.util.ArrayList;
import java.util.List;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.SchemaChange;
import io.postlog.Transaction;
import io.postlog.consumer.delivery.AckWindow;

/**
 * A subscription called on the delivery thread.
 */
final class SerialTarget extends Target {

	private final ListenerRunner runner;

	private long changeLsn;

	private int changeIndex = -1;

	private long transactionLsn;

	private long messageLsn;

	private long schemaLsn;

	private int schemaSequence = -1;

	SerialTarget(ListenerRunner runner) {
		super(runner.subscription());
		this.runner = runner;
	}

	@Override
	void rewindBefore(Lsn from) {
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
	void resetTo(Lsn checkpoint) {
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
	long change(Event.ChangeArrived arrived, AckWindow.Entry entry) {
		Change change = arrived.change();
		if (this.subscription.kind() != ListenerShape.Kind.CHANGE || !after(change, this.changeLsn, this.changeIndex)) {
			return 0;
		}
		long nanos = this.subscription.accepts(change) ? this.runner.change(change, entry) : 0;
		this.changeLsn = change.commitLsn().value();
		this.changeIndex = change.index();
		return nanos;
	}

	@Override
	long snapshotChange(Event.ChangeArrived arrived, AckWindow.Entry entry) {
		Change change = arrived.change();
		return (this.subscription.kind() == ListenerShape.Kind.CHANGE && this.subscription.accepts(change))
				? this.runner.change(change, entry) : 0;
	}

	@Override
	long snapshotCommit(Transaction batch, AckWindow.Entry entry) {
		return (this.subscription.kind() == ListenerShape.Kind.TRANSACTION) ? deliver(batch, entry) : 0;
	}

	@Override
	long message(LogicalMessage message, AckWindow.Entry entry) {
		if (this.subscription.kind() != ListenerShape.Kind.MESSAGE
				|| Long.compareUnsigned(message.lsn().value(), this.messageLsn) <= 0) {
			return 0;
		}
		long nanos = this.runner.message(message, entry);
		this.messageLsn = message.lsn().value();
		return nanos;
	}

	@Override
	long schema(Event.SchemaChanged changed, AckWindow.Entry entry) {
		SchemaChange schema = changed.schemaChange();
		long lsn = schema.commitLsn().value();
		int order = Long.compareUnsigned(lsn, this.schemaLsn);
		if (this.subscription.schemaHandler() == null || order < 0
				|| (order == 0 && changed.sequence() <= this.schemaSequence)) {
			return 0;
		}
		long nanos = this.runner.schema(schema, entry);
		this.schemaLsn = lsn;
		this.schemaSequence = changed.sequence();
		return nanos;
	}

	@Override
	long commit(Transaction transaction, AckWindow.Entry entry) {
		if (this.subscription.kind() != ListenerShape.Kind.TRANSACTION
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
