package io.postlog.consumer;

import java.time.Duration;
import java.util.List;

import io.postlog.Lsn;
import io.postlog.ReplicationConsumerException;
import io.postlog.admin.ConnectionLostException;
import io.postlog.admin.SlotInUseException;
import io.postlog.admin.SlotInfo;
import io.postlog.consumer.backfill.BackfillSettings;
import io.postlog.consumer.backfill.SnapshotChunkRecord;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.ConsumerThreads;
import io.postlog.consumer.delivery.Dispatcher;
import io.postlog.consumer.delivery.FailureLedger;
import io.postlog.consumer.delivery.HandOff;
import io.postlog.consumer.delivery.Heartbeats;
import io.postlog.consumer.delivery.Lanes;
import io.postlog.consumer.delivery.StopSignal;
import io.postlog.consumer.spill.SpillLimitExceededException;
import io.postlog.consumer.spill.StreamedTransactions;
import io.postlog.decoder.LogicalDecoder;
import io.postlog.schema.SchemaTracker;
import io.postlog.stream.LogicalStream;
import io.postlog.stream.StreamRequest;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of the delivery contract (DESIGN.md, "Delivery contract"). It runs the
 * consumer's sessions on the delivery thread and composes the parts that keep each
 * clause:
 * <ol>
 * <li><b>Order.</b> One reader thread per session hands events over in stream order
 * ({@link StreamReader}, {@link HandOff}); the {@link Dispatcher} calls serial
 * subscriptions in that order on this thread, and {@link Lanes} keep it per key.</li>
 * <li><b>Ack.</b> The {@link AckWindow} alone decides what may be acknowledged: the end
 * of the longest prefix of transactions every subscription, lane and
 * {@code Acknowledgment} finished; nothing past a failure.</li>
 * <li><b>Redelivery.</b> Every session starts at the acknowledged position; what the
 * server sends again is skipped per subscription by its own progress
 * ({@link Dispatcher}), and change ids are built from slot, commit LSN and index
 * ({@link PgOutputAssembler}), whatever the plugin: a decoder of another plugin yields
 * pgoutput's own messages, its commit LSN taken from its own commit message.</li>
 * <li><b>Empty transactions</b> complete in the window at once; the reader acknowledges
 * keepalive positions while nothing is in flight. Heartbeats coming back are empty for
 * every subscription: {@link Heartbeats} reports them to the heartbeat monitor, which
 * also hears of every stream start.</li>
 * <li><b>Handler failure</b> is retried for that subscription alone
 * ({@link ListenerRunner}), then its {@link ErrorHandler} decides; by default that
 * subscription stops alone ({@link SubscriptionControl}): the {@link AckWindow} holds at
 * its position while the others go on, and a start streams again from there. Where one
 * subscription cannot hold a position (a transactional store, a temporary slot, snapshot
 * and backfill rows) the consumer is {@code FAILED} ({@link #fail}). A handler's own
 * exception is never taken for connection loss, whatever its SQLState
 * ({@link #classify}). {@code STANDBY} uses no attempts.</li>
 * <li><b>Connection loss</b> ({@link ConnectionLostException}, see {@link #classify})
 * reconnects with the {@link ReconnectPolicy reconnect policy}'s capped back-off,
 * forever; a closed connection is seen by the stream's socket probe, a silent one by the
 * reader's liveness check, a hung call by {@link DeliverySession#watch the watchdog}, a
 * hung connect by the connect timeout. Every thread runs under {@link ConsumerThreads},
 * which makes its death a state change. A reconnect that fails because the slot is lost
 * is never retried into a new slot silently: {@link LostSlots} fails the consumer, or
 * recreates the slot and logs what was skipped (with an initial snapshot, drops it for a
 * new snapshot to create).</li>
 * <li><b>Slow handlers.</b> The reader keeps the connection alive while delivery is
 * behind, the hand-off full, or the window at {@code maxUnacknowledged}.</li>
 * <li><b>Memory.</b> The hand-off is bounded in events and bytes; transaction
 * subscriptions are bounded by {@code maxTransactionChanges}.</li>
 * <li><b>Standby.</b> A slot held elsewhere ({@link SlotInUseException}) means
 * {@code STANDBY}, retried until it is free.</li>
 * <li><b>Value-free errors.</b> Every message here and in the parts names slots, tables,
 * LSNs and subscriptions, never values; a handler's exception is kept as the cause.</li>
 * <li><b>Identifiers</b> are checked by {@link ConsumerConfig} before anything runs.</li>
 * <li><b>Large transactions.</b> With streaming on, the reader's
 * {@link StreamingAssembler} buffers in-progress transactions in the session's
 * {@link StreamedTransactions} (bounded memory, then spill files), drops aborted ones and
 * aborted subtransactions, and at each commit passes the transaction on as protocol 1
 * would have sent it, before reading on: every clause above holds for it unchanged. A
 * transaction that needs more than {@code maxSpill} fails the consumer
 * ({@link SpillLimitExceededException}, fatal) before its commit is read, so nothing from
 * it on is acknowledged; the spill files go with the session.</li>
 * <li><b>Initial snapshot</b> (DESIGN.md, "Snapshots and backfills"). Before the first
 * stream, {@link InitialSnapshot} takes the slot's hand-off on this thread: it delivers
 * every snapshot row through the {@link Dispatcher} in batches between transactions, so
 * order, lanes, acknowledgements, failures and memory are kept as above, and all
 * {@code SNAPSHOT} changes come before the stream; the slot is handed over only when
 * every batch is finished, and the stream then starts at its consistent point. A failure
 * is classified as a stream's is (never as a lost slot: on 12+ the slot does not exist
 * until the hand-off) and the snapshot is taken again; a stop cancels it.</li>
 * <li><b>Backfills</b> (DESIGN.md, "Snapshots and backfills"). Only when backfills are on
 * is the {@link BackfillWindow} installed; then every event passes it on its way to the
 * {@link Dispatcher}, and the stream is never held back for a backfill. The
 * {@link BackfillRunner}'s thread reads each chunk between a low and a high watermark; at
 * the high watermark's commit the window delivers the chunk's rows that no streamed
 * change won over through {@link Dispatcher#snapshot}, so order (per key on lanes too),
 * acknowledgements, failures and memory are kept as above. An update that did not resend
 * a TOASTed value is merged while its table is backfilled. Progress is recorded after a
 * chunk is acknowledged; a restart resumes at the next chunk, and a chunk cut off by a
 * reconnect or a stop is read again.</li>
 * </ol>
 */
final class DeliveryContract implements Runnable {

	private static final Logger logger = LoggerFactory.getLogger(DeliveryContract.class);

	private final ConsumerConfig config;

	private final ConsumerSetup.Result setup;

	private final Heartbeats heartbeats;

	private final LostSlots lostSlots;

	private final ConsumerStates states;

	private final AckWindow window;

	private final ConsumerThreads threads;

	private final StopSignal stop = new StopSignal();

	private final Dispatcher dispatcher;

	private final @Nullable SlotPositionCheck slotCheck;

	private final @Nullable InitialSnapshot snapshot;

	/** The backfill window and its runner, only when backfills are on. */
	private final @Nullable ConsumerBackfills backfills;

	private final DeliverySession session;

	/** The store that keeps the tables' shapes; {@code null} if it keeps none. */
	private final @Nullable ShapeCheckpoints shapes;

	private volatile @Nullable Throwable fatal;

	private volatile boolean ended;

	private final SubscriptionControls controls;

	DeliveryContract(ConsumerConfig config, ConsumerSetup.Result setup, ConsumerStates states, AckWindow window,
			ValueDecoders decoders, StreamingSpill spill, SubscriptionControls controls) {
		SchemaTracker schemas = DeliverySession.tracker(config, window);
		CheckpointStore store = ShapeCheckpoints.around(config.checkpointStore(), schemas);
		this.shapes = (store instanceof ShapeCheckpoints kept) ? kept : null;
		if (this.shapes != null) {
			config = config.withCheckpointStore(store);
		}
		this.config = config;
		this.controls = controls;
		this.setup = setup;
		this.heartbeats = new Heartbeats(config.walSafety().heartbeatMonitor(), setup.heartbeatTable());
		this.lostSlots = new LostSlots(config);
		this.states = states;
		this.window = window;
		this.threads = new ConsumerThreads(this::threadDied);
		this.dispatcher = ConsumerDispatch.dispatcher(config, window, states, this.stop, this.threads, this.heartbeats,
				controls, this::laneFailed);
		this.slotCheck = (config.admin() != null && !config.temporary())
				? new SlotPositionCheck(config.admin(), config.slotName(), window, config.listener()) : null;
		SnapshotSettings snapshot = config.snapshot();
		boolean snapshots = snapshot != null && config.admin() != null;
		BackfillSettings backfill = config.backfill();
		this.backfills = (backfill != null) ? new ConsumerBackfills(config, backfill, states, this.dispatcher, window,
				decoders, setup.serverVersion(), setup.request().binary(), snapshots) : null;
		SnapshotChunkRecord chunkRecord = (this.backfills != null) ? this.backfills.chunkRecord() : null;
		this.snapshot = snapshots ? new InitialSnapshot(config, snapshot, setup.heartbeatTable(), config.admin(),
				decoders, this.dispatcher, window, states, this.stop, chunkRecord) : null;
		this.session = new DeliverySession(config, setup, decoders, spill, this.threads, window, this.dispatcher,
				(this.backfills != null) ? this.backfills.window() : null, controls, this.stop, () -> this.fatal,
				schemas);
	}

	void start() {
		this.threads.start("postlog-delivery-" + this.config.slotName(), this);
		this.threads.start("postlog-watchdog-" + this.config.slotName(), () -> this.session.watch(() -> this.ended));
		if (this.backfills != null) {
			this.threads.start("postlog-backfill-" + this.config.slotName(), this.backfills.runner());
		}
	}

	/**
	 * Asks delivery to finish the transaction it is in (within the timeout), acknowledge,
	 * and end.
	 * @param timeout the grace period
	 */
	void requestStop(Duration timeout) {
		this.stop.request(timeout);
		if (this.backfills != null) {
			this.backfills.stop();
		}
		if (this.snapshot != null) {
			// A snapshot cut short is taken again: nothing in it is worth waiting for.
			this.snapshot.cancel();
		}
	}

	/**
	 * Waits for every thread of the consumer to end.
	 * @param deadlineNanos when to give up
	 * @return whether they all ended
	 */
	boolean awaitStopped(long deadlineNanos) {
		return this.threads.joinAll(deadlineNanos);
	}

	/**
	 * Breaks the connection and interrupts the consumer's threads: the last resort when a
	 * handler did not return within the stop timeout.
	 */
	void abandon() {
		StreamReader current = this.session.reader();
		if (current != null) {
			current.abort();
		}
		if (this.snapshot != null) {
			this.snapshot.cancel();
		}
		this.threads.interruptAll();
	}

	@Nullable SnapshotProgress snapshotProgress() {
		return (this.snapshot != null) ? this.snapshot.progress() : null;
	}

	@Nullable ConsumerBackfills backfills() {
		return this.backfills;
	}

	List<String> aliveThreads() {
		return this.threads.alive();
	}

	boolean isConsumerThread() {
		return this.threads.isCurrentThreadOwn();
	}

	@Override
	public void run() {
		try {
			loop();
		}
		finally {
			this.ended = true;
			if (this.backfills != null) {
				this.backfills.window().closeConnection();
			}
			this.dispatcher.close();
		}
	}

	private void loop() {
		int reconnects = 0;
		int failures = 0;
		int standbyWaits = 0;
		boolean tookOver = true;
		boolean streamedBefore = false;
		while (!this.stop.requested() && this.fatal == null) {
			LogicalStream stream;
			try {
				if (this.shapes != null) {
					// Before the first session streams; a failure is retried like
					// opening.
					this.shapes.startTracking();
				}
				handOver();
				startSubscriptions();
				stream = this.config.streams().open(request());
			}
			catch (RuntimeException ex) {
				// Before the hand-off the slot does not exist yet (12+): a snapshot's
				// failure is not a loss.
				LostSlots.Found lost = snapshotPending() ? null : this.lostSlots.afterFailure(ex, this.window.acked());
				if (lost != null) {
					if (!recovered(lost)) {
						return;
					}
					tookOver = true;
					continue;
				}
				Failures.Outcome outcome = Failures.classify(ex);
				if (outcome == Failures.Outcome.STANDBY) {
					standbyWaits++;
					tookOver = true;
					if (standbyWaits == 1) {
						logger.info("Slot {} is in use by another process; waiting in standby", this.config.slotName());
					}
					this.states.standby(ex);
					pause(this.config.reconnectPolicy().backOff(standbyWaits));
					continue;
				}
				if (outcome == Failures.Outcome.CONNECTION) {
					reconnects++;
					reconnecting(reconnects, this.config.reconnectPolicy().backOff(reconnects), ex);
					continue;
				}
				if (outcome == Failures.Outcome.FATAL || !this.config.retryPolicy().canRetry(++failures)) {
					fail(ex);
					return;
				}
				reconnecting(failures, this.config.retryPolicy().backOff(failures), ex);
				continue;
			}
			if (standbyWaits > 0) {
				logger.info("Slot {} was released by the other process; this consumer took it over",
						this.config.slotName());
			}
			standbyWaits = 0;
			this.session.temporarySlotNotice(stream, streamedBefore);
			checkSlot(tookOver);
			tookOver = false;
			streamedBefore = true;
			Lsn ackedBefore = this.window.acked();
			long started = System.nanoTime();
			this.heartbeats.streamStarted();
			this.states.streaming();
			Throwable end = this.session.run(stream);
			if (end == null) {
				return;
			}
			if (end == DeliverySession.RESTART) {
				// A subscription starts again: the stream goes back to its position.
				continue;
			}
			if (end instanceof FailureLedger.Redelivery redelivery) {
				// A handler failed inside a sink transaction, which was rolled back; the
				// handler's attempts are counted per change across redeliveries.
				this.states.reconnecting(redelivery.getCause());
				pause(redelivery.backOff());
				continue;
			}
			boolean progressed = this.window.acked().isAfter(ackedBefore);
			long streamed = System.nanoTime() - started;
			if (progressed || streamed > this.config.reconnectPolicy().maxInterval().toNanos()) {
				reconnects = 0;
			}
			if (progressed || streamed > this.config.retryPolicy().maxInterval().toNanos()) {
				failures = 0;
			}
			LostSlots.Found lost = this.lostSlots.afterFailure(end, this.window.acked());
			if (lost != null) {
				if (!recovered(lost)) {
					return;
				}
				tookOver = true;
				continue;
			}
			Failures.Outcome outcome = Failures.classify(end);
			if (outcome == Failures.Outcome.FATAL) {
				fail(end);
				return;
			}
			if (outcome == Failures.Outcome.CONNECTION || outcome == Failures.Outcome.STANDBY) {
				reconnects++;
				reconnecting(reconnects, this.config.reconnectPolicy().backOff(reconnects), end);
			}
			else if (!this.config.retryPolicy().canRetry(++failures)) {
				fail(end);
				return;
			}
			else {
				reconnecting(failures, this.config.retryPolicy().backOff(failures), end);
			}
		}
		Throwable failure = this.fatal;
		if (failure != null) {
			fail(failure);
		}
	}

	/**
	 * Starts the subscriptions asked to start, while nothing is in flight, and sets each
	 * back to its position; the session about to open streams from the lowest of them.
	 */
	private void startSubscriptions() {
		if (this.window.size() > 0 || this.dispatcher.inTransaction() || !this.controls.startWaiting()) {
			return;
		}
		this.controls.applyStarts(this.window).forEach(this.dispatcher::rewind);
	}

	private boolean snapshotPending() {
		return this.snapshot != null && this.snapshot.pending();
	}

	/**
	 * Takes the initial snapshot's hand-off until this process has handed one over, or
	 * found the slot already there.
	 */
	private void handOver() {
		if (this.snapshot == null || !this.snapshot.pending()) {
			return;
		}
		try {
			this.snapshot.run();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new StopSignal.StopRequested();
		}
	}

	private StreamRequest request() {
		Lsn start = this.config.temporary() ? Lsn.INVALID : this.window.acked();
		LogicalDecoder decoder = this.config.decoder();
		return new StreamRequest(this.config.slotName(), decoder.plugin(),
				decoder.startOptions(this.setup.serverVersion(), this.setup.request()), start,
				this.config.statusInterval(), this.config.temporary());
	}

	private void reconnecting(int attempt, Duration backOff, Throwable cause) {
		if (this.stop.requested()) {
			return;
		}
		logger.warn("Consumer of slot {} reconnecting in {} ms (attempt {}), acknowledged position {}: {}",
				this.config.slotName(), backOff.toMillis(), attempt, this.window.acked(), Failures.describe(cause));
		this.states.reconnecting(cause);
		this.config.listener().retrying(attempt, backOff, cause);
		pause(backOff);
	}

	private void fail(Throwable cause) {
		if (this.stop.requested() && cause instanceof StopSignal.StopRequested) {
			return;
		}
		ConsumerFailureLog.failed(logger, this.config.slotName(), this.window.acked(), cause);
		this.states.failed(cause);
	}

	/**
	 * Goes on after a lost slot: from the new slot's start once recreated, or from a new
	 * initial snapshot that creates it, else fails.
	 * @return whether streaming goes on
	 */
	private boolean recovered(LostSlots.Found lost) {
		if (lost.snapshotAgain() && this.snapshot != null) {
			this.snapshot.again();
			return true;
		}
		SlotInfo slot = lost.recreated();
		if (slot == null) {
			fail(lost.loss());
			return false;
		}
		if (slot.confirmedFlushLsn() != null) {
			this.window.baseline(slot.confirmedFlushLsn());
		}
		return true;
	}

	private void laneFailed(Throwable cause) {
		if (this.fatal == null) {
			this.fatal = cause;
		}
	}

	private void threadDied(String thread, Throwable cause) {
		ReplicationConsumerException died = new ReplicationConsumerException(
				"Thread " + thread + " of the consumer of slot " + this.config.slotName() + " died", cause);
		if (this.fatal == null) {
			this.fatal = died;
		}
		if (!this.stop.requested()) {
			logger.error("Thread {} of the consumer of slot {} died; the consumer fails", thread,
					this.config.slotName(), cause);
			this.states.failed(died);
			this.stop.request(Duration.ZERO);
			StreamReader current = this.session.reader();
			if (current != null) {
				current.abort();
			}
		}
	}

	private void checkSlot(boolean tookOver) {
		if (this.slotCheck == null) {
			return;
		}
		try {
			this.slotCheck.verify(tookOver);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not check the position of slot {}: {}", this.config.slotName(), Failures.describe(ex));
		}
	}

	private void pause(Duration duration) {
		this.stop.pause(duration);
	}

}
