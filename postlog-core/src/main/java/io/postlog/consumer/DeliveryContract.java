package io.postlog.consumer;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.ReplicationConsumerException;
import io.postlog.admin.ConnectionLostException;
import io.postlog.admin.InsufficientPrivilegeException;
import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PublicationNotFoundException;
import io.postlog.admin.SlotConflictException;
import io.postlog.admin.SlotInUseException;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.SlotLostException;
import io.postlog.admin.SlotNotFoundException;
import io.postlog.admin.SlotPluginMismatchException;
import io.postlog.admin.WalLevelException;
import io.postlog.consumer.spill.SpillLimitExceededException;
import io.postlog.consumer.spill.StreamedTransactions;
import io.postlog.consumer.spill.StreamingOptions;
import io.postlog.decoder.DecoderCatalog;
import io.postlog.decoder.DecoderRefusedException;
import io.postlog.decoder.LogicalDecoder;
import io.postlog.decoder.PluginDecodingException;
import io.postlog.decoder.StreamDecoder;
import io.postlog.pgoutput.PgOutputDecodingException;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.pgoutput.RowDecodingException;
import io.postlog.snapshot.InvalidSnapshotNameException;
import io.postlog.snapshot.SnapshotReadException;
import io.postlog.snapshot.SnapshotRefusedException;
import io.postlog.stream.LogicalStream;
import io.postlog.stream.StreamRequest;
import io.postlog.types.ValueDecoders;
import io.postlog.types.ValueDecodingException;
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
 * reader's liveness check, a hung call by {@link #watch the watchdog}, a hung connect by
 * the connect timeout. Every thread runs under {@link ConsumerThreads}, which makes its
 * death a state change. A reconnect that fails because the slot is lost is never retried
 * into a new slot silently: {@link LostSlots} fails the consumer, or recreates the slot
 * and logs what was skipped (with an initial snapshot, drops it for a new snapshot to
 * create).</li>
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
 * <li><b>Backfills</b> (DESIGN.md, "Snapshots and backfills"). Every event passes the
 * {@link BackfillWindow} on its way to the {@link Dispatcher}: the stream is never held
 * back for a backfill. The {@link BackfillRunner}'s thread reads each chunk between a low
 * and a high watermark; at the high watermark's commit the window delivers the chunk's
 * rows that no streamed change won over through {@link Dispatcher#snapshot}, so order
 * (per key on lanes too), acknowledgements, failures and memory are kept as above. An
 * update that did not resend a TOASTed value is merged while its table is backfilled.
 * Progress is recorded after a chunk is acknowledged; a restart resumes at the next
 * chunk, and a chunk cut off by a reconnect or a stop is read again.</li>
 * </ol>
 */
final class DeliveryContract implements Runnable {

	private static final Logger logger = LoggerFactory.getLogger(DeliveryContract.class);

	private static final int BATCH = 256;

	private static final long WATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

	/** Ends a session for a subscription started again: streamed again at once. */
	private static final Throwable RESTART = new ReplicationConsumerException("A subscription starts again") {

		private static final long serialVersionUID = 1L;

		@Override
		public synchronized Throwable fillInStackTrace() {
			return this;
		}

	};

	/**
	 * The longest an open sink transaction waits, from the first time the delivery thread
	 * found nothing handed over, for the backlog the reader is still reading.
	 */
	private static final long SINK_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

	/**
	 * How often an open sink transaction looks again whether the reader caught up, while
	 * nothing is handed over.
	 */
	private static final long SINK_RECHECK_MICROS = 100;

	private final ConsumerConfig config;

	private final ConsumerSetup.Result setup;

	/**
	 * The catalog of decoders other than pgoutput, which always have admin connections.
	 */
	private final @Nullable DecoderCatalog catalog;

	private final Heartbeats heartbeats;

	private final LostSlots lostSlots;

	private final ConsumerStates states;

	private final AckWindow window;

	private final ConsumerThreads threads;

	private final StopSignal stop = new StopSignal();

	private final Dispatcher dispatcher;

	private final ValueDecoders decoders;

	private final @Nullable SlotPositionCheck slotCheck;

	private final StreamingSpill spill;

	private final @Nullable InitialSnapshot snapshot;

	private final BackfillWindow backfills;

	private final @Nullable BackfillRunner backfillRunner;

	private volatile @Nullable StreamReader reader;

	private volatile @Nullable Throwable fatal;

	private volatile boolean ended;

	private final SubscriptionControls controls;

	DeliveryContract(ConsumerConfig config, ConsumerSetup.Result setup, ConsumerStates states, AckWindow window,
			ValueDecoders decoders, StreamingSpill spill, SubscriptionControls controls) {
		this.config = config;
		this.controls = controls;
		this.spill = spill;
		this.setup = setup;
		AdminConnections admin = config.admin();
		this.catalog = (admin != null) ? new AdminDecoderCatalog(admin) : null;
		this.heartbeats = new Heartbeats(config.walSafety().heartbeatMonitor(), setup.heartbeatTable());
		this.lostSlots = new LostSlots(config);
		this.states = states;
		this.window = window;
		this.decoders = decoders;
		this.threads = new ConsumerThreads(this::threadDied);
		this.dispatcher = new Dispatcher(config, window, states, this.stop, this.threads, this.heartbeats, controls,
				this::laneFailed);
		this.slotCheck = (config.admin() != null && !config.temporary())
				? new SlotPositionCheck(config.admin(), config.slotName(), window, config.listener()) : null;
		SnapshotSettings snapshot = config.snapshot();
		this.snapshot = (snapshot != null && config.admin() != null) ? new InitialSnapshot(config, snapshot,
				setup.heartbeatTable(), config.admin(), decoders, this.dispatcher, window, states, this.stop) : null;
		BackfillSettings backfill = config.backfill();
		Watermarks watermarks = (backfill != null)
				? new Watermarks(setup.serverVersion(), backfill.watermarkTable(), config.slotName()) : null;
		this.backfills = new BackfillWindow(config, this.dispatcher, watermarks, backfill);
		this.backfillRunner = (backfill != null) ? new BackfillRunner(config, backfill, this.backfills, window, states,
				decoders, setup.serverVersion(), setup.request().binary()) : null;
	}

	void start() {
		this.threads.start("postlog-delivery-" + this.config.slotName(), this);
		this.threads.start("postlog-watchdog-" + this.config.slotName(), this::watch);
		if (this.backfillRunner != null) {
			this.threads.start("postlog-backfill-" + this.config.slotName(), this.backfillRunner);
		}
	}

	/**
	 * Asks delivery to finish the transaction it is in (within the timeout), acknowledge,
	 * and end.
	 * @param timeout the grace period
	 */
	void requestStop(Duration timeout) {
		this.stop.request(timeout);
		if (this.backfillRunner != null) {
			this.backfillRunner.stop();
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
		StreamReader current = this.reader;
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

	@Nullable BackfillRunner backfills() {
		return this.backfillRunner;
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
			this.backfills.closeConnection();
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
				Outcome outcome = classify(ex);
				if (outcome == Outcome.STANDBY) {
					standbyWaits++;
					tookOver = true;
					if (standbyWaits == 1) {
						logger.info("Slot {} is in use by another process; waiting in standby", this.config.slotName());
					}
					this.states.standby(ex);
					pause(this.config.reconnectPolicy().backOff(standbyWaits));
					continue;
				}
				if (outcome == Outcome.CONNECTION) {
					reconnects++;
					reconnecting(reconnects, this.config.reconnectPolicy().backOff(reconnects), ex);
					continue;
				}
				if (outcome == Outcome.FATAL || !this.config.retryPolicy().canRetry(++failures)) {
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
			temporarySlotNotice(stream, streamedBefore);
			checkSlot(tookOver);
			tookOver = false;
			streamedBefore = true;
			Lsn ackedBefore = this.window.acked();
			long started = System.nanoTime();
			this.heartbeats.streamStarted();
			this.states.streaming();
			Throwable end = session(stream);
			if (end == null) {
				return;
			}
			if (end == RESTART) {
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
			Outcome outcome = classify(end);
			if (outcome == Outcome.FATAL) {
				fail(end);
				return;
			}
			if (outcome == Outcome.CONNECTION || outcome == Outcome.STANDBY) {
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
			throw new ListenerRunner.StopRequested();
		}
	}

	private StreamRequest request() {
		Lsn start = this.config.temporary() ? Lsn.INVALID : this.window.acked();
		LogicalDecoder decoder = this.config.decoder();
		return new StreamRequest(this.config.slotName(), decoder.plugin(),
				decoder.startOptions(this.setup.serverVersion(), this.setup.request()), start,
				this.config.statusInterval(), this.config.temporary());
	}

	/**
	 * The session's assembler: pgoutput's payloads are decoded by the assembler itself,
	 * another plugin's by a stream decoder made for this session over the admin
	 * connections' catalog.
	 */
	private MessageAssembler assembler() {
		boolean routing = this.config.subscriptions().stream().anyMatch((s) -> s.concurrency() > 1);
		@Nullable StreamDecoder plugin = this.config.pgoutput() ? null : this.config.decoder()
			.newStream(this.setup.serverVersion(), this.setup.request(), Objects.requireNonNull(this.catalog));
		PgOutputAssembler assembler = new PgOutputAssembler(this.config.slotName(), new RowDecoder(this.decoders),
				routing, plugin);
		StreamingOptions streaming = this.config.streaming();
		if (streaming == null) {
			return assembler;
		}
		return new StreamingAssembler(assembler, new StreamedTransactions(streaming, this.config.slotName()),
				this.spill);
	}

	private @Nullable Throwable session(LogicalStream stream) {
		HandOff<Event> handOff = new HandOff<>(this.config.readAheadEvents(), this.config.readAheadBytes(),
				Event::bytes);
		StreamReader streamReader = new StreamReader(this.config.slotName(), stream, assembler(), handOff, this.window,
				this.config.statusInterval());
		this.reader = streamReader;
		Thread readerThread = this.threads.start("postlog-reader-" + this.config.slotName(), streamReader);
		Throwable end = null;
		try {
			end = deliver(handOff, streamReader, readerThread);
			return end;
		}
		finally {
			streamReader.stop();
			join(readerThread, streamReader);
			this.reader = null;
			try {
				this.dispatcher.sessionEnded(end);
			}
			catch (InterruptedException | ListenerRunner.StopRequested ex) {
				logger.debug("Lanes of slot {} did not settle before the stop", this.config.slotName());
			}
			catch (RuntimeException ex) {
				logger.warn("Ending the session of slot {} failed: {}", this.config.slotName(), describe(ex));
			}
		}
	}

	/**
	 * Delivers what the reader hands over until the session ends.
	 * @return why it ended, {@code null} for a stop
	 */
	private @Nullable Throwable deliver(HandOff<Event> handOff, StreamReader streamReader, Thread readerThread) {
		List<Event> batch = new ArrayList<>(BATCH);
		long emptySince = 0;
		try {
			this.dispatcher.sessionStarted();
			while (true) {
				Throwable failure = this.fatal;
				if (failure != null) {
					return failure;
				}
				if (stopNow()) {
					finishStop();
					return null;
				}
				if (this.controls.startWaiting() && !this.dispatcher.inTransaction() && this.window.size() == 0
						&& !this.dispatcher.sinkWaiting()) {
					return RESTART;
				}
				batch.clear();
				// Backfill rows go between streamed transactions, while none waits.
				if (this.backfills.hasPending()) {
					this.backfills.deliverPending(() -> !handOff.isEmpty());
				}
				if (!this.dispatcher.sinkWaiting()) {
					emptySince = 0;
				}
				if (handOff.drainTo(batch, BATCH, 0, TimeUnit.MILLISECONDS) == 0) {
					long now = System.nanoTime();
					if (emptySince == 0) {
						emptySince = now;
					}
					if (streamReader.caughtUp() || now - emptySince >= SINK_WAIT_NANOS) {
						// Nothing is waiting (or the backlog took too long): a
						// sink transaction open for more is committed now.
						this.dispatcher.idle();
					}
					if (!this.backfills.hasPending()) {
						// While the reader reads the next transaction, an open sink
						// transaction waits for it a moment at a time.
						handOff.drainTo(batch, BATCH, this.dispatcher.sinkWaiting() ? SINK_RECHECK_MICROS : 50_000,
								TimeUnit.MICROSECONDS);
					}
				}
				for (Event event : batch) {
					if (stopNow()) {
						break;
					}
					this.backfills.deliver(event);
					handOff.done(1);
				}
				if (batch.isEmpty() && !readerThread.isAlive() && handOff.isEmpty()) {
					Throwable ended = streamReader.failure();
					if (ended != null) {
						return ended;
					}
					return this.stop.requested() ? null : new ConnectionLostException(
							"The replication stream of slot '" + this.config.slotName() + "' ended", null);
				}
			}
		}
		catch (ListenerRunner.StopRequested ex) {
			unacknowledgedAtStop();
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			unacknowledgedAtStop();
			return null;
		}
		catch (RuntimeException | Error ex) {
			return ex;
		}
	}

	private boolean stopNow() {
		return this.stop.requested() && (!this.dispatcher.inTransaction() || this.stop.overdue());
	}

	/**
	 * Lets lanes and outstanding acknowledgements finish within the stop deadline, so the
	 * reader's last status carries as much as possible.
	 */
	private void finishStop() throws InterruptedException {
		this.dispatcher.idle();
		this.dispatcher.awaitLanes();
		if (!this.window.awaitEmpty(this.stop.deadlineNanos())) {
			unacknowledgedAtStop();
		}
	}

	private void unacknowledgedAtStop() {
		int inFlight = this.window.size();
		if (inFlight == 0) {
			return;
		}
		List<String> holding = this.controls.outstanding();
		logger.info("Consumer of slot {} stops with {} transaction(s) delivered but not yet acknowledged{}",
				this.config.slotName(), inFlight,
				holding.isEmpty() ? "" : "; acknowledgements outstanding from " + String.join(", ", holding));
	}

	private void join(Thread thread, StreamReader streamReader) {
		long deadline = System.nanoTime() + streamReader.liveness().toNanos() + TimeUnit.SECONDS.toNanos(1);
		try {
			// The reader ends within one poll unless it is inside a call; on a stop that
			// call is broken at once, otherwise the watchdog breaks it within the
			// liveness
			// bound.
			thread.join(this.stop.requested() ? 500 : 1000);
			if (thread.isAlive()) {
				if (this.stop.requested()) {
					streamReader.abort();
				}
				thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
			}
		}
		catch (InterruptedException ex) {
			streamReader.abort();
			Thread.currentThread().interrupt();
		}
	}

	private void reconnecting(int attempt, Duration backOff, Throwable cause) {
		if (this.stop.requested()) {
			return;
		}
		logger.warn("Consumer of slot {} reconnecting in {} ms (attempt {}), acknowledged position {}: {}",
				this.config.slotName(), backOff.toMillis(), attempt, this.window.acked(), describe(cause));
		this.states.reconnecting(cause);
		this.config.listener().retrying(attempt, backOff, cause);
		pause(backOff);
	}

	private void fail(Throwable cause) {
		if (this.stop.requested() && cause instanceof ListenerRunner.StopRequested) {
			return;
		}
		if (cause instanceof HandlerFailedException) {
			// Its handler's exception was logged with each failed attempt.
			logger.error("Consumer of slot {} failed; the acknowledged position stays at {}: {}",
					this.config.slotName(), this.window.acked(), describe(cause));
		}
		else {
			// A server's error can quote row values (a DETAIL on a connection of the
			// application's pool): its SQLState is logged, not its text.
			SQLException server = PgErrors.serverError(cause);
			String described = describe(cause);
			if (server != null && !described.contains("SQLState " + server.getSQLState())) {
				described += " (" + PgErrors.describe(server) + ")";
			}
			logger.error("Consumer of slot {} failed; the acknowledged position stays at {}: {}",
					this.config.slotName(), this.window.acked(), described, (server != null) ? null : cause);
		}
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
			StreamReader current = this.reader;
			if (current != null) {
				current.abort();
			}
		}
	}

	/**
	 * Breaks the connection when the reader is stuck inside one call for longer than its
	 * liveness bound (a stall inside a message, a write that never completes).
	 */
	private void watch() {
		List<PendingAcknowledgment> warned = new ArrayList<>();
		while (!this.ended) {
			LockSupport.parkNanos(WATCH_NANOS);
			this.controls.warnStalls(this.config.unacknowledgedWarning(), this.config.maxUnacknowledged(), warned);
			StreamReader current = this.reader;
			if (current != null && current.stuckNanos(System.nanoTime()) > current.liveness().toNanos()) {
				logger.warn("A call on the replication connection of slot {} hung for more than {} ms; breaking it",
						this.config.slotName(), current.liveness().toMillis());
				current.abort();
			}
		}
	}

	private void temporarySlotNotice(LogicalStream stream, boolean streamedBefore) {
		Lsn created = stream.createdSlotAt();
		if (!this.config.temporary() || !created.isValid()) {
			return;
		}
		Lsn acked = this.window.acked();
		if (streamedBefore) {
			logger.warn("Temporary slot {} ended with its connection and was created again at {}: changes committed "
					+ "between {} and {} were not delivered and cannot be; use a permanent slot (slot lifecycle "
					+ "create-if-missing) to keep them across reconnects", this.config.slotName(), created, acked,
					created);
			this.config.listener().slotAdvanced(acked, created);
		}
		this.window.baseline(created);
	}

	private void checkSlot(boolean tookOver) {
		if (this.slotCheck == null) {
			return;
		}
		try {
			this.slotCheck.verify(tookOver);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not check the position of slot {}: {}", this.config.slotName(), describe(ex));
		}
	}

	private void pause(Duration duration) {
		this.stop.pause(duration);
	}

	/**
	 * Sorts a failure by what the consumer does about it.
	 */
	static Outcome classify(Throwable failure) {
		if (failure instanceof HandlerFailedException) {
			// A handler's exception is its own failure whatever its SQLState: only
			// postlog's own connections fail as connection loss.
			return Outcome.FATAL;
		}
		if (failure instanceof SlotInUseException) {
			return Outcome.STANDBY;
		}
		if (failure instanceof ConnectionLostException || connectionFailed(failure)) {
			return Outcome.CONNECTION;
		}
		if (failure instanceof SnapshotRefusedException || failure instanceof InvalidSnapshotNameException
				|| failure instanceof SlotConflictException || failure instanceof SlotPluginMismatchException
				|| (failure instanceof SnapshotReadException && failure.getCause() instanceof ValueDecodingException)) {
			return Outcome.FATAL;
		}
		if (failure instanceof SlotNotFoundException || failure instanceof PublicationNotFoundException
				|| failure instanceof InsufficientPrivilegeException || failure instanceof InvalidIdentifierException
				|| failure instanceof WalLevelException || failure instanceof SlotLostException
				|| failure instanceof ReplicationConsumerException || failure instanceof HandlerFailedException
				|| failure instanceof PgOutputDecodingException || failure instanceof PluginDecodingException
				|| failure instanceof DecoderRefusedException || failure instanceof RowDecodingException
				|| failure instanceof ValueDecodingException || failure instanceof Error) {
			return Outcome.FATAL;
		}
		return Outcome.OTHER;
	}

	/**
	 * Returns whether a failure on an ordinary connection (a snapshot reader's, an admin
	 * connection's) was the connection's: its cause keeps the server's SQLState.
	 */
	private static boolean connectionFailed(Throwable failure) {
		return failure instanceof PostlogException && failure.getCause() instanceof SQLException sql
				&& PgErrors.isConnectionFailure(sql);
	}

	/**
	 * Describes a failure without a handler's own message, which may quote row values.
	 */
	static String describe(Throwable failure) {
		if (failure instanceof HandlerFailedException && failure.getCause() != null) {
			return failure.getMessage() + " (" + failure.getCause().getClass().getName() + ")";
		}
		if (failure instanceof PostlogException) {
			return failure.getClass().getSimpleName() + ": " + failure.getMessage();
		}
		return failure.getClass().getName();
	}

	/**
	 * What a failure leads to.
	 */
	enum Outcome {

		/** Another process holds the slot: wait, using no attempts. */
		STANDBY,

		/** The connection is gone: reconnect, without a limit. */
		CONNECTION,

		/** Retrying cannot help: {@code FAILED}. */
		FATAL,

		/** Unexpected: retried within the retry policy's attempts. */
		OTHER

	}

}
