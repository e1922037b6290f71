package io.postlog.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.consumer.checkpoint.ChunkMark;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.ConsumerThreads;
import io.postlog.consumer.delivery.Event;
import io.postlog.consumer.delivery.Heartbeats;
import io.postlog.consumer.delivery.Recipient;
import io.postlog.consumer.delivery.StopSignal;
import io.postlog.consumer.delivery.Target;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers events to every subscription in configuration order: serial ones in place,
 * concurrent ones' changes routed to lanes, transaction ones the buffered transaction at
 * its commit; every transaction is opened in and dispatched to the {@link AckWindow}.
 * Each subscription keeps its own progress (the last change, transaction or message it
 * was given), so that what the server sends again after a reconnect reaches only those
 * that have not had it; transactions already acknowledged are skipped whole. Heartbeats
 * coming back reach no subscription ({@link Heartbeats}). Snapshot rows come in batches
 * between transactions ({@link #snapshot}). Not thread-safe: the delivery thread only.
 */
final class Dispatcher {

	private static final Logger logger = LoggerFactory.getLogger(Dispatcher.class);

	private final ConsumerConfig config;

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

	private final CheckpointStore store;

	private final @Nullable FailureLedger ledger;

	private Lsn checkpoint = Lsn.INVALID;

	/** Whether the open source transaction is at or below the checkpoint. */
	private boolean checkpointed;

	private boolean sinkOpen;

	private long sinkOpenedNanos;

	private Lsn sinkLastCommit = Lsn.INVALID;

	private final List<AckWindow.Entry> sinkEntries = new ArrayList<>();

	/**
	 * Whether the open sink transaction holds rows of a snapshot or backfill chunk, which
	 * commit only with the chunk's mark ({@link #chunkDone}).
	 */
	private boolean chunkOpen;

	/** A table of postlog's own whose changes reach no subscription, or {@code null}. */
	private @Nullable TableId ignored;

	private final SubscriptionControls controls;

	/** Masks applied before any target sees a change; {@code null} when none is set. */
	private final @Nullable ColumnMasks masks;

	Dispatcher(ConsumerConfig config, AckWindow window, ConsumerStates states, StopSignal stop, ConsumerThreads threads,
			Heartbeats heartbeats, SubscriptionControls controls, Consumer<Throwable> onLaneFailure) {
		this.config = config;
		this.controls = controls;
		this.masks = config.masks();
		this.heartbeats = heartbeats;
		this.window = window;
		this.stop = stop;
		this.store = config.checkpointStore();
		this.ledger = this.store.transactional() ? new FailureLedger() : null;
		this.targets.addAll(
				SubscriptionTargets.of(config, window, states, stop, threads, this.ledger, controls, onLaneFailure));
		this.buffering = config.subscriptions()
			.stream()
			.anyMatch((subscription) -> subscription.kind() == Recipient.Kind.TRANSACTION);
	}

	boolean inTransaction() {
		return this.open != null;
	}

	/**
	 * Prepares a session: with a transactional store, reads the checkpoint.
	 */
	void sessionStarted() {
		if (this.ledger != null) {
			this.checkpoint = this.store.load();
			this.sinkLastCommit = this.checkpoint;
		}
	}

	/**
	 * Returns whether a sink transaction is open between source transactions, waiting for
	 * more to join it or for {@link #idle()} to commit it.
	 * @return {@code true} if one waits
	 */
	boolean sinkWaiting() {
		return this.sinkOpen && this.open == null;
	}

	/**
	 * Commits an open sink transaction when nothing more is waiting to be delivered, so a
	 * trickle is not held back; never one inside a chunk.
	 */
	void idle() {
		if (this.sinkOpen && this.open == null && !this.chunkOpen) {
			commitSink();
		}
	}

	/**
	 * Delivers one event.
	 * @param event the event
	 * @throws HandlerFailedException if a subscription's error handler failed the
	 * consumer
	 * @throws StopSignal.StopRequested if a stop ended a wait
	 * @throws ReplicationConsumerException if the transaction is too large or the events
	 * are out of order
	 * @throws InterruptedException if interrupted while waiting for room
	 */
	void deliver(Event event) throws InterruptedException {
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
		this.window.awaitBelow(this.config.maxUnacknowledged(), this.stop::overdue);
		if (this.stop.overdue()) {
			throw new StopSignal.StopRequested();
		}
		this.controls.atBoundary(begin.commitLsn(), this.window);
		this.entry = this.window.begin(begin.commitLsn());
		if (this.ledger != null) {
			this.checkpointed = !begin.commitLsn().isAfter(this.checkpoint);
			if (this.checkpointed) {
				return;
			}
			openSink();
		}
		for (Target target : this.targets) {
			target.begin();
		}
	}

	private void openSink() {
		if (!this.sinkOpen) {
			this.store.begin();
			this.sinkOpen = true;
			this.sinkOpenedNanos = System.nanoTime();
		}
	}

	private void change(Event.ChangeArrived event) throws InterruptedException {
		Event.Begin begin = requireOpen("a change");
		if (this.skipping || this.checkpointed) {
			return;
		}
		Event.ChangeArrived arrived = ColumnMasks.apply(this.masks, event);
		Change change = arrived.change();
		if (change.table().equals(this.ignored) || this.heartbeats.consume(change)) {
			this.ownChanges++;
			return;
		}
		if (this.buffering) {
			if (this.buffered.size() >= this.config.maxTransactionChanges()) {
				throw new ReplicationConsumerException("Transaction xid " + begin.xid() + " (commit LSN "
						+ begin.commitLsn() + ") has more than " + this.config.maxTransactionChanges()
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
		this.config.listener().changeDelivered(change, Duration.ofNanos(nanos));
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
		this.controls.atBoundary(message.lsn(), this.window);
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
		if (this.sinkOpen) {
			this.window.hold(entry);
			this.sinkEntries.add(entry);
			this.sinkLastCommit = commit.commitLsn();
		}
		this.window.dispatched(entry, commit.endLsn());
		if (commit.changeCount() > this.ownChanges) {
			this.config.listener().transactionDelivered(transaction, Duration.ofNanos(this.handlerNanos));
		}
		end();
		if (this.sinkOpen && !this.chunkOpen && (this.sinkEntries.size() >= this.config.checkpointBatch()
				|| System.nanoTime() - this.sinkOpenedNanos >= this.config.checkpointBatchDelay().toNanos())) {
			commitSink();
		}
	}

	/**
	 * Keeps the changes of a table of postlog's own from every subscription: the snapshot
	 * marker table before PostgreSQL 12, which a publication of all tables publishes too.
	 * @param table the table
	 */
	void ignore(TableId table) {
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
	 * @throws HandlerFailedException if a subscription's error handler failed the
	 * consumer
	 * @throws StopSignal.StopRequested if a stop ended a wait
	 * @throws InterruptedException if interrupted while waiting for room
	 */
	AckWindow.Entry snapshot(List<Event.ChangeArrived> rows, Lsn consistentPoint, Instant snapshotTime)
			throws InterruptedException {
		if (this.open != null) {
			throw new IllegalStateException("Snapshot rows cannot be delivered inside a transaction");
		}
		if (!this.chunkOpen) {
			// Inside a chunk the window holds its batches until the chunk commits.
			this.window.awaitBelow(this.config.maxUnacknowledged(), this.stop::overdue);
			if (this.stop.overdue()) {
				throw new StopSignal.StopRequested();
			}
		}
		this.controls.atBoundary(consistentPoint, this.window);
		if (this.ledger != null) {
			openSink();
			this.chunkOpen = true;
		}
		AckWindow.Entry entry = this.window.snapshot(consistentPoint);
		if (this.chunkOpen) {
			// Held until the chunk commits, forgotten if it rolls back.
			this.window.hold(entry);
			this.sinkEntries.add(entry);
		}
		List<Change> changes = this.buffering ? new ArrayList<>(rows.size()) : List.of();
		for (Target target : this.targets) {
			target.begin();
		}
		for (Event.ChangeArrived unmasked : rows) {
			Event.ChangeArrived row = ColumnMasks.apply(this.masks, unmasked);
			long nanos = 0;
			for (Target target : this.targets) {
				nanos += target.snapshotChange(row, entry);
			}
			if (this.buffering) {
				changes.add(row.change());
			}
			this.config.listener().changeDelivered(row.change(), Duration.ofNanos(nanos));
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
	void chunkDone(ChunkMark mark) {
		if (this.ledger == null) {
			return;
		}
		openSink();
		try {
			this.store.recordChunk(mark);
		}
		catch (RuntimeException ex) {
			rollbackSink();
			throw ex;
		}
		this.chunkOpen = false;
		commitSink();
	}

	/**
	 * Rolls back a sink transaction left inside a chunk by a snapshot that ended early.
	 */
	void abandonChunk() {
		if (this.chunkOpen) {
			rollbackSink();
		}
	}

	private void commitSink() {
		try {
			this.store.commit(this.sinkLastCommit);
		}
		catch (RuntimeException ex) {
			// Not known to be committed: never committed a second time, but forgotten and
			// delivered again after the checkpoint the next session reads.
			rollbackSink();
			throw ex;
		}
		this.sinkOpen = false;
		this.checkpoint = this.sinkLastCommit;
		this.ledger.committed(this.checkpoint);
		List<AckWindow.Entry> committed = List.copyOf(this.sinkEntries);
		this.sinkEntries.clear();
		for (AckWindow.Entry done : committed) {
			this.window.release(done);
		}
	}

	/**
	 * Rolls an open sink transaction back: its source transactions are forgotten by the
	 * window and every subscription's progress goes back to the checkpoint, so that all
	 * of it is delivered again.
	 */
	private void rollbackSink() {
		this.sinkOpen = false;
		this.chunkOpen = false;
		try {
			this.store.rollback();
		}
		catch (RuntimeException ex) {
			// The sink's connection is likely gone with its transaction, which is then
			// rolled back by the server: nothing of it is committed either way.
			logger.debug("Rolling back the sink transaction of slot {} failed: {}", this.config.slotName(),
					Failures.describe(ex));
		}
		List<AckWindow.Entry> forgotten = new ArrayList<>(this.sinkEntries);
		if (this.entry != null) {
			forgotten.add(this.entry);
		}
		this.sinkEntries.clear();
		this.window.forget(forgotten);
		for (Target target : this.targets) {
			target.resetTo(this.checkpoint);
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
	void sessionEnded(@Nullable Throwable cause) throws InterruptedException {
		if (this.sinkOpen) {
			if (this.open != null || this.chunkOpen || cause instanceof FailureLedger.Redelivery) {
				rollbackSink();
			}
			else {
				try {
					commitSink();
				}
				catch (RuntimeException ex) {
					// Rolled back by commitSink: delivered again after the checkpoint the
					// next session reads.
					logger.warn(
							"Committing the sink transaction of slot {} at the end of its session failed; it "
									+ "is delivered again from checkpoint {}: {}",
							this.config.slotName(), this.checkpoint, Failures.describe(ex));
				}
			}
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
	void rewind(String subscriptionId, Lsn from) {
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
	void awaitLanes() throws InterruptedException {
		for (Target target : this.targets) {
			target.awaitIdle();
		}
	}

	/**
	 * Stops the lanes.
	 */
	void close() {
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
