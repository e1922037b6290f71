package io.postlog.consumer.delivery;

import java.util.BitSet;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.SchemaChange;
import io.postlog.Transaction;

/**
 * A change subscription on lanes.
 * <p>
 * Internal: public only so the consumer can use it; not part of postlog's API, and it may
 * change in any release.
 */
public final class LaneTarget extends Target {

	private final Lanes lanes;

	private final BitSet used;

	private long changeLsn;

	private int changeIndex = -1;

	private long schemaLsn;

	private int schemaSequence = -1;

	public LaneTarget(Lanes lanes) {
		super(lanes.subscription());
		this.lanes = lanes;
		this.used = new BitSet(lanes.size());
	}

	@Override
	public void rewindBefore(Lsn from) {
		if (Long.compareUnsigned(this.changeLsn, from.value()) >= 0) {
			this.changeLsn = from.value();
			this.changeIndex = -1;
		}
		if (Long.compareUnsigned(this.schemaLsn, from.value()) >= 0) {
			this.schemaLsn = from.value();
			this.schemaSequence = -1;
		}
	}

	@Override
	public void begin() {
		this.used.clear();
	}

	@Override
	public long change(Event.ChangeArrived arrived, AckWindow.Entry entry) throws InterruptedException {
		Change change = arrived.change();
		if (!after(change, this.changeLsn, this.changeIndex)) {
			return 0;
		}
		this.changeLsn = change.commitLsn().value();
		this.changeIndex = change.index();
		if (!this.subscription.accepts(change)) {
			return 0;
		}
		int lane = this.lanes.laneOf(arrived.route());
		if (arrived.previousRoute() != arrived.route()) {
			int previous = this.lanes.laneOf(arrived.previousRoute());
			if (previous != lane) {
				this.lanes.awaitIdle(previous);
			}
		}
		this.used.set(lane);
		this.lanes.dispatch(lane, change, entry, arrived.bytes());
		return 0;
	}

	@Override
	public long snapshotChange(Event.ChangeArrived arrived, AckWindow.Entry entry) throws InterruptedException {
		if (!this.subscription.accepts(arrived.change())) {
			return 0;
		}
		int lane = this.lanes.laneOf(arrived.route());
		this.used.set(lane);
		this.lanes.dispatch(lane, arrived.change(), entry, arrived.bytes());
		return 0;
	}

	@Override
	public long snapshotCommit(Transaction batch, AckWindow.Entry entry) throws InterruptedException {
		return commit(batch, entry);
	}

	@Override
	public long commit(Transaction transaction, AckWindow.Entry entry) throws InterruptedException {
		for (int lane = this.used.nextSetBit(0); lane >= 0; lane = this.used.nextSetBit(lane + 1)) {
			this.lanes.commit(lane, entry);
		}
		this.used.clear();
		return 0;
	}

	@Override
	public long schema(Event.SchemaChanged changed, AckWindow.Entry entry) throws InterruptedException {
		SchemaChange schema = changed.schemaChange();
		long lsn = schema.commitLsn().value();
		int order = Long.compareUnsigned(lsn, this.schemaLsn);
		if (!this.subscription.takesSchemaChanges() || order < 0
				|| (order == 0 && changed.sequence() <= this.schemaSequence)) {
			return 0;
		}
		// Every change before it is handled before the schema change is.
		this.lanes.awaitIdle();
		long nanos = this.lanes.schema(schema, entry);
		this.schemaLsn = lsn;
		this.schemaSequence = changed.sequence();
		return nanos;
	}

	@Override
	public void awaitIdle() throws InterruptedException {
		this.lanes.awaitIdle();
	}

	@Override
	public void close() {
		this.lanes.close();
	}

}
