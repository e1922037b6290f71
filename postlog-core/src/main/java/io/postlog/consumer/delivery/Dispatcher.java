package io.postlog.consumer.delivery;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.consumer.checkpoint.ChunkMark;
import org.jspecify.annotations.Nullable;

/**
 * Delivers events to every subscription in configuration order: serial ones in place,
 * concurrent ones' changes routed to lanes, transaction ones the buffered transaction at
 * its commit; every transaction is opened in and dispatched to the {@link AckWindow}.
 * Each subscription keeps its own progress (the last change, transaction or message it
 * was given), so that what the server sends again after a reconnect reaches only those
 * that have not had it; transactions already acknowledged are skipped whole. Heartbeats
 * coming back reach no subscription ({@link Heartbeats}). Snapshot rows come in batches
 * between transactions ({@link #snapshot}). Not thread-safe: the delivery thread only.
 * <p>
 * Internal: public only so the consumer can build and drive it; not part of postlog's
 * API, and it may change in any release.
 */
public final class Dispatcher {

	private final DispatchHost host;

	private final AckWindow window;

	private final StopSignal stop;

	private final List<Target> targets = new ArrayList<>();

	private final boolean buffering;

	private final List<Change> buffered = new ArrayList<>();

	private Event.@Nullable Begin open;

	private AckWindow.@Nullable Entry entry;

	private boolean skipping;

	private long handlerNanos;

	private final Heartbeats heartbeats;

	/**
	 * The changes of the open transaction to postlog's own tables (heartbeats, the
	 * snapshot marker), which no subscription sees.
	 */
	private int ownChanges;

	/** With a transactional checkpoint store, its sink transaction; else {@code null}. */
	private final @Nullable SinkTransaction sink;

	/** Whether the open source transaction is at or below the checkpoint. */
	private boolean checkpointed;

	/** A table of postlog's own whose changes reach no subscription, or {@code null}. */
	private @Nullable TableId ignored;

	/**
	 * Creates the dispatcher of a consumer.
	 * @param host the consumer
	 * @param window the acknowledgement window
	 * @param stop the consumer's stop signal
	 * @param heartbeats the recogniser of heartbeats coming back
	 * @param targets the subscriptions' targets, in configuration order
	 * @param sink with a transactional checkpoint store, that store; else {@code null}
	 * @param ledger with a transactional checkpoint store, the failures its runners
	 * count; {@code null} exactly when {@code sink} is
	 */
	public Dispatcher(DispatchHost host, AckWindow window, StopSignal stop, Heartbeats heartbeats, List<Target> targets,
			@Nullable CheckpointSink sink, @Nullable FailureLedger<?> ledger) {
		this.host = host;
		this.heartbeats = heartbeats;
		this.window = window;
		this.stop = stop;
		this.targets.addAll(targets);
		this.sink = (sink != null) ? new SinkTransaction(sink, Objects.requireNonNull(ledger), window, this.targets,
				host, () -> this.entry) : null;
		this.buffering = this.targets.stream()
			.anyMatch((target) -> target.subscription.kind() == Recipient.Kind.TRANSACTION);
	}

	public boolean inTransaction() {
		return this.open != null;
	}

	/**
	 * Prepares a session: with a transactional store, reads the checkpoint.
	 */
	public void sessionStarted() {
		if (this.sink != null) {
			this.sink.sessionStarted();
		}
	}

	/**
	 * Returns whether a sink transaction is open between source transactions, waiting for
	 * more to join it or for {@link #idle()} to commit it.
	 * @return {@code true} if one waits
	 */
	public boolean sinkWaiting() {
		return this.sink != null && this.sink.isOpen() && this.open == null;
	}

	/**
	 * Commits an open sink transaction when nothing more is waiting to be delivered, so a
	 * trickle is not held back; never one inside a chunk.
	 */
	public void idle() {
		if (this.sink != null && this.sink.isOpen() && this.open == null && !this.sink.inChunk()) {
			this.sink.commit();
		}
	}

	/**
	 * Delivers one event.
	 * @param event the event
	 * @throws RuntimeException (the consumer's handler failure) if an error handler
	 * failed the consumer
	 * @throws StopSignal.StopRequested if a stop ended a wait
	 * @throws ReplicationConsumerException if the transaction is too large or the events
	 * are out of order
	 * @throws InterruptedException if interrupted while waiting for room
	 */
	public void deliver(Event event) throws InterruptedException {
		if (event instanceof Event.Begin begin) {
			begin(begin);
		}
		else if (event instanceof Event.ChangeArrived arrived) {
			change(arrived);
		}
		else if (event instanceof Event.MessageArrived arrived) {
			message(arrived.message());
		}
		else if (event instanceof Event.SchemaChanged changed) {
			schema(changed);
		}
		else {
			commit((Event.Commit) event);
		}
	}

	private void begin(Event.Begin begin) throws InterruptedException {
		if (this.open != null) {
			throw new ReplicationConsumerException("Transaction xid " + begin.xid() + " began inside transaction xid "
					+ this.open.xid() + " (commit LSN " + this.open.commitLsn() + ")");
		}
		this.open = begin;
		this.buffered.clear();
		this.handlerNanos = 0;
		this.ownChanges = 0;
		// A transaction whose commit lies before the acknowledged position was delivered
		// before a reconnect; the server may send it again when it had not yet heard.
		this.skipping = begin.commitLsn().isBefore(this.window.acked());
		if (this.skipping) {
			return;
		}
		this.window.awaitBelow(this.host.maxUnacknowledged(), this.stop::overdue);
		if (this.stop.overdue()) {
			throw new StopSignal.StopRequested();
		}
		this.host.atBoundary(begin.commitLsn(), this.window);
		this.entry = this.window.begin(begin.commitLsn());
		if (this.sink != null) {
			this.checkpointed = this.sink.covers(begin.commitLsn());
			if (this.checkpointed) {
				return;
			}
			this.sink.open();
		}
		for (Target target : this.targets) {
			target.begin();
		}
	}

	private void change(Event.ChangeArrived event) throws InterruptedException {
		Event.Begin begin = requireOpen("a change");
		if (this.skipping || this.checkpointed) {
			return;
		}
		Event.ChangeArrived arrived = this.host.mask(event);
		Change change = arrived.change();
		if (change.table().equals(this.ignored) || this.heartbeats.consume(change)) {
			this.ownChanges++;
			return;
		}
		if (this.buffering) {
			if (this.buffered.size() >= this.host.maxTransactionChanges()) {
				throw new ReplicationConsumerException("Transaction xid " + begin.xid() + " (commit LSN "
						+ begin.commitLsn() + ") has more than " + this.host.maxTransactionChanges()
						+ " changes, the most a transaction handler can be given; raise maxTransactionChanges "
						+ "(postlog.max-transaction-changes) or use a change handler, which needs no buffering");
			}
			this.buffered.add(change);
		}
		long nanos = 0;
		for (Target target : this.targets) {
			nanos += target.change(arrived, entry());
		}
		this.handlerNanos += nanos;
		this.host.changeDelivered(change, Duration.ofNanos(nanos));
	}

	private void message(LogicalMessage message) throws InterruptedException {
		if (message.transactional()) {
			requireOpen("a transactional message");
			if (this.skipping || this.checkpointed || this.heartbeats.consume(message)) {
				return;
			}
			for (Target target : this.targets) {
				this.handlerNanos += target.message(message, entry());
			}
			return;
		}
		if (message.lsn().isBefore(this.window.acked())) {
			return;
		}
		boolean heartbeat = this.heartbeats.consume(message);
		this.host.atBoundary(message.lsn(), this.window);
		AckWindow.Entry own = this.window.message(message.lsn());
		if (!heartbeat) {
			for (Target target : this.targets) {
				target.message(message, own);
			}
		}
		this.window.dispatched(own, message.lsn());
	}

	private void schema(Event.SchemaChanged changed) throws InterruptedException {
		requireOpen("a schema change");
		if (this.skipping || this.checkpointed) {
			return;
		}
		for (Target target : this.targets) {
			this.handlerNanos += target.schema(changed, entry());
		}
	}

	private void commit(Event.Commit commit) throws InterruptedException {
		requireOpen("a commit");
		if (this.skipping) {
			end();
			return;
		}
		AckWindow.Entry entry = entry();
		if (this.checkpointed) {
			// Its sink transaction committed before: acknowledged without calling anyone.
			this.window.dispatched(entry, commit.endLsn());
			end();
			return;
		}
		Transaction transaction = new Transaction(commit.xid(), commit.commitLsn(), commit.endLsn(),
				commit.commitTime(), commit.origin(), this.buffered);
		for (Target target : this.targets) {
			this.handlerNanos += target.commit(transaction, entry);
		}
		if (this.sink != null && this.sink.isOpen()) {
			this.sink.delivered(entry, commit.commitLsn());
		}
		this.window.dispatched(entry, commit.endLsn());
		if (commit.changeCount() > this.ownChanges) {
			this.host.transactionDelivered(transaction, Duration.ofNanos(this.handlerNanos));
		}
		end();
		if (this.sink != null
				&& this.sink.due(this.host.checkpointBatch(), this.host.checkpointBatchDelay().toNanos())) {
			this.sink.commit();
		}
	}

	/**
	 * Keeps the changes of a table of postlog's own from every subscription: the snapshot
	 * marker table before PostgreSQL 12, which a publication of all tables publishes too.
	 * @param table the table
	 */
	public void ignore(TableId table) {
		this.ignored = table;
	}

	/**
	 * Delivers a batch of initial snapshot rows between stream transactions, as one unit
	 * of the window (which bounds the batches in flight by {@code maxUnacknowledged}):
	 * change subscriptions get each row, in place or on their lanes by its route, and
	 * transaction subscriptions the batch as one {@link Transaction} with xid 0 and the
	 * consistent point as commit and end LSN. Snapshot rows hold no stream position, so
	 * no subscription's progress skips or records them. Backfill chunks come the same
	 * way, with their high watermark's commit as the point. With a transactional store
	 * the rows go into the open sink transaction (opened if none is), which commits only
	 * at the chunk's end ({@link #chunkDone}).
	 * @param rows the rows, at most {@code maxTransactionChanges}
	 * @param consistentPoint the snapshot's consistent point
	 * @param snapshotTime when the snapshot was exported
	 * @return the batch's entry in the window
	 * @throws RuntimeException (the consumer's handler failure) if an error handler
	 * failed the consumer
	 * @throws StopSignal.StopRequested if a stop ended a wait
	 * @throws InterruptedException if interrupted while waiting for room
	 */
	public AckWindow.Entry snapshot(List<Event.ChangeArrived> rows, Lsn consistentPoint, Instant snapshotTime)
			throws InterruptedException {
		if (this.open != null) {
			throw new IllegalStateException("Snapshot rows cannot be delivered inside a transaction");
		}
		boolean inChunk = this.sink != null && this.sink.inChunk();
		if (!inChunk) {
			// Inside a chunk the window holds its batches until the chunk commits.
			this.window.awaitBelow(this.host.maxUnacknowledged(), this.stop::overdue);
			if (this.stop.overdue()) {
				throw new StopSignal.StopRequested();
			}
		}
		this.host.atBoundary(consistentPoint, this.window);
		if (this.sink != null) {
			this.sink.openChunk();
		}
		AckWindow.Entry entry = this.window.snapshot(consistentPoint);
		if (this.sink != null) {
			// Held until the chunk commits, forgotten if it rolls back.
			this.sink.hold(entry);
		}
		List<Change> changes = this.buffering ? new ArrayList<>(rows.size()) : List.of();
		for (Target target : this.targets) {
			target.begin();
		}
		for (Event.ChangeArrived unmasked : rows) {
			Event.ChangeArrived row = this.host.mask(unmasked);
			long nanos = 0;
			for (Target target : this.targets) {
				nanos += target.snapshotChange(row, entry);
			}
			if (this.buffering) {
				changes.add(row.change());
			}
			this.host.changeDelivered(row.change(), Duration.ofNanos(nanos));
		}
		Transaction batch = new Transaction(0, consistentPoint, consistentPoint, snapshotTime, null, changes);
		for (Target target : this.targets) {
			target.snapshotCommit(batch, entry);
		}
		this.window.dispatched(entry, consistentPoint);
		return entry;
	}

	/**
	 * Ends a chunk of snapshot or backfill rows: with a transactional store, writes the
	 * chunk's mark into the sink transaction that holds its rows (opened for the mark
	 * alone if no row went) and commits it, so that the rows and the mark commit
	 * together. Without one, does nothing.
	 * @param mark the chunk's mark
	 */
	public void chunkDone(ChunkMark mark) {
		if (this.sink != null) {
			this.sink.chunkDone(mark);
		}
	}

	/**
	 * Rolls back a sink transaction left inside a chunk by a snapshot that ended early.
	 */
	public void abandonChunk() {
		if (this.sink != null && this.sink.inChunk()) {
			this.sink.rollback();
		}
	}

	private void end() {
		this.open = null;
		this.entry = null;
		this.skipping = false;
		this.checkpointed = false;
		this.ownChanges = 0;
		this.buffered.clear();
	}

	/**
	 * Forgets the transaction a lost session left open (the server sends it again, and
	 * its window entry is found again), and waits until the lanes have handled what they
	 * were given, so that every subscription's progress is exact before the next session.
	 * @throws InterruptedException if interrupted while waiting
	 */
	public void sessionEnded(@Nullable Throwable cause) throws InterruptedException {
		if (this.sink != null) {
			this.sink.sessionEnded(this.open != null || cause instanceof FailureLedger.Redelivery);
		}
		end();
		for (Target target : this.targets) {
			target.awaitIdle();
		}
	}

	/**
	 * Sets a subscription started again back to a position: what the stream sends from
	 * there reaches it again (the others skip it by their own progress).
	 * @param subscriptionId the subscription
	 * @param from the commit LSN of the first transaction it has not finished
	 */
	public void rewind(String subscriptionId, Lsn from) {
		for (Target target : this.targets) {
			if (target.subscriptionId().equals(subscriptionId)) {
				target.rewindBefore(from);
			}
		}
	}

	/**
	 * Waits until the lanes have handled what they were given, or the stop deadline.
	 * @throws InterruptedException if interrupted while waiting
	 */
	public void awaitLanes() throws InterruptedException {
		for (Target target : this.targets) {
			target.awaitIdle();
		}
	}

	/**
	 * Stops the lanes.
	 */
	public void close() {
		for (Target target : this.targets) {
			target.close();
		}
	}

	private AckWindow.Entry entry() {
		AckWindow.Entry current = this.entry;
		if (current == null) {
			throw new IllegalStateException("No transaction is open");
		}
		return current;
	}

	private Event.Begin requireOpen(String what) {
		Event.Begin begin = this.open;
		if (begin == null) {
			throw new ReplicationConsumerException("The stream sent " + what + " outside a transaction");
		}
		return begin;
	}

}
