package io.postlog.consumer;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.postlog.Lsn;
import io.postlog.ReplicationConsumerException;
import io.postlog.admin.ConnectionLostException;
import io.postlog.consumer.backfill.BackfillWindow;
import io.postlog.consumer.backfill.Watermarks;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.ConsumerThreads;
import io.postlog.consumer.delivery.Dispatcher;
import io.postlog.consumer.delivery.Event;
import io.postlog.consumer.delivery.HandOff;
import io.postlog.consumer.delivery.Lanes;
import io.postlog.consumer.delivery.StopSignal;
import io.postlog.consumer.spill.StreamedTransactions;
import io.postlog.consumer.spill.StreamingOptions;
import io.postlog.decoder.DecoderCatalog;
import io.postlog.decoder.StreamDecoder;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.schema.SchemaCatalog;
import io.postlog.schema.SchemaTracker;
import io.postlog.stream.LogicalStream;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One session of the delivery loop at a time: starts the reader thread over a stream just
 * opened, delivers what it hands over through the {@link BackfillWindow} to the
 * {@link Dispatcher} on the delivery thread until the session ends, and lets the reader
 * go. {@link DeliveryContract} decides what happens after. Used by the delivery thread;
 * {@link #reader()} may be read from any thread (the watchdog, a thread's death, a stop).
 */
final class DeliverySession {

	/** The category it logged under as part of the delivery contract, kept for users. */
	private static final Logger logger = LoggerFactory.getLogger("io.postlog.consumer.DeliveryContract");

	private static final long WATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

	private static final int BATCH = 256;

	/** Ends a session for a subscription started again: streamed again at once. */
	static final Throwable RESTART = new ReplicationConsumerException("A subscription starts again") {

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

	private final ValueDecoders decoders;

	private final StreamingSpill spill;

	private final ConsumerThreads threads;

	private final AckWindow window;

	private final Dispatcher dispatcher;

	/** The backfill window in front of the dispatcher, only when backfills are on. */
	private final @Nullable BackfillWindow backfills;

	private final SubscriptionControls controls;

	private final StopSignal stop;

	private final Supplier<@Nullable Throwable> fatal;

	private volatile @Nullable StreamReader reader;

	/** The tables' shapes across sessions, when a subscription takes schema changes. */
	private final @Nullable SchemaTracker schemas;

	DeliverySession(ConsumerConfig config, ConsumerSetup.Result setup, ValueDecoders decoders, StreamingSpill spill,
			ConsumerThreads threads, AckWindow window, Dispatcher dispatcher, @Nullable BackfillWindow backfills,
			SubscriptionControls controls, StopSignal stop, Supplier<@Nullable Throwable> fatal,
			@Nullable SchemaTracker schemas) {
		this.config = config;
		this.setup = setup;
		AdminConnections admin = config.admin();
		this.catalog = (admin != null) ? new AdminDecoderCatalog(admin) : null;
		this.decoders = decoders;
		this.spill = spill;
		this.threads = threads;
		this.window = window;
		this.dispatcher = dispatcher;
		this.backfills = backfills;
		this.controls = controls;
		this.stop = stop;
		this.fatal = fatal;
		this.schemas = schemas;
	}

	/**
	 * Returns the tables' shapes across sessions, when a subscription takes schema
	 * changes.
	 * @return the tracker, or {@code null}
	 */
	static @Nullable SchemaTracker tracker(ConsumerConfig config, AckWindow window) {
		AdminConnections admin = config.admin();
		SchemaTracker schemas = config.wantsSchemaChanges() ? new SchemaTracker((admin != null) ? (relation) -> admin
			.apply("Reading relation OID " + Integer.toUnsignedString(relation.relationId()) + " from the catalog",
					(connection) -> SchemaCatalog.query(connection, relation))
				: null) : null;
		if (schemas != null) {
			schemas.prunedBy(window::acked);
		}
		if (schemas != null && config.ddlEvents()) {
			schemas.withDdlEvents();
		}
		return schemas;
	}

	/**
	 * Returns the reader of the session running now.
	 * @return the reader, or {@code null} between sessions
	 */
	@Nullable StreamReader reader() {
		return this.reader;
	}

	/**
	 * Hands one event on: through the backfill window when backfills are on, else
	 * straight to the dispatcher. Either way, a backfill's watermark message (this
	 * consumer's or another's on the same database) reaches no subscription.
	 */
	private void deliver(Event event) throws InterruptedException {
		if (this.backfills != null) {
			this.backfills.deliver(event);
		}
		else if (!(event instanceof Event.MessageArrived arrived) || Watermarks.token(arrived.message()) == null) {
			this.dispatcher.deliver(event);
		}
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
		if (this.schemas != null) {
			assembler.trackingSchemas(this.schemas);
			if (this.backfills != null) {
				assembler.trackingBackfillShapes(this.backfills::readShapes);
			}
		}
		StreamingOptions streaming = this.config.streaming();
		if (streaming == null) {
			return assembler;
		}
		return new StreamingAssembler(assembler, new StreamedTransactions(streaming, this.config.slotName()),
				this.spill);
	}

	/**
	 * Runs one session over a stream that was just opened.
	 * @param stream the stream
	 * @return why it ended, {@code null} for a stop, {@link #RESTART} for a subscription
	 * started again
	 */
	@Nullable Throwable run(LogicalStream stream) {
		HandOff<Event> handOff = new HandOff<>(this.config.readAheadEvents(), this.config.readAheadBytes(),
				Event::bytes);
		if (this.schemas != null) {
			// The stream sends again what was not acknowledged: so are its schema
			// changes.
			this.schemas.rewind(this.window.acked());
		}
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
			catch (InterruptedException | StopSignal.StopRequested ex) {
				logger.debug("Lanes of slot {} did not settle before the stop", this.config.slotName());
			}
			catch (RuntimeException ex) {
				logger.warn("Ending the session of slot {} failed: {}", this.config.slotName(), Failures.describe(ex));
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
				Throwable failure = this.fatal.get();
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
				if (this.backfills != null && this.backfills.hasPending()) {
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
					if (this.backfills == null || !this.backfills.hasPending()) {
						// While the reader reads the next transaction, an open sink
						// transaction waits for it a moment at a time.
						handOff.drainTo(batch, BATCH, this.dispatcher.sinkWaiting() ? SINK_RECHECK_MICROS : 50_000,
								TimeUnit.MICROSECONDS);
					}
					else {
						// Between two bursts of backfill rows, a moment for a streamed
						// event, taken at once if one comes.
						handOff.drainTo(batch, BATCH, BackfillWindow.PAUSE_MICROS, TimeUnit.MICROSECONDS);
					}
				}
				for (Event event : batch) {
					if (stopNow()) {
						break;
					}
					deliver(event);
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
		catch (StopSignal.StopRequested ex) {
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

	/**
	 * Breaks the connection when the reader is stuck inside one call for longer than its
	 * liveness bound (a stall inside a message, a write that never completes), and warns
	 * of acknowledgements held too long; runs on the watchdog thread until the loop
	 * ended.
	 * @param ended whether the delivery loop ended
	 */
	void watch(BooleanSupplier ended) {
		List<PendingAcknowledgment> warned = new ArrayList<>();
		while (!ended.getAsBoolean()) {
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

	/**
	 * Notices a temporary slot created anew for this stream: what was committed meanwhile
	 * is lost, and the window starts at the new slot.
	 */
	void temporarySlotNotice(LogicalStream stream, boolean streamedBefore) {
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

}
