package io.postlog.consumer;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import javax.sql.DataSource;

import io.postlog.Lsn;
import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.spill.SpillDirectory;
import io.postlog.consumer.spill.SpillDirectoryException;
import io.postlog.consumer.spill.StreamingOptions;
import io.postlog.stream.LogicalStreamFactory;
import io.postlog.stream.PgLogicalStreamFactory;
import io.postlog.stream.ReplicationConnectionFactory;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams a logical replication slot to subscriptions: ordered, at-least-once delivery,
 * with the slot acknowledged only past transactions that every subscription finished (its
 * handler returned, its lanes passed it, its {@link io.postlog.Acknowledgment}s were
 * acknowledged), in commit order. A reader thread owns the replication connection; one
 * delivery thread runs the serial subscriptions and routes the changes of concurrent ones
 * to their lanes. A failing handler is retried alone; a lost connection is retried
 * without a limit; every thread's death is a state change. See {@link DeliveryContract}
 * for how each clause of the delivery contract is kept.
 * <p>
 * {@link #start()}, {@link #stop()}, {@link #state()} and {@link #ackedLsn()} may be
 * called from any thread; a consumer is started at most once and never after
 * {@link #stop()}.
 * <p>
 * Connections: the replication connection is always fresh, opened for each (re)connect
 * and closed by the consumer. Admin work (slot and publication set-up, slot checks,
 * catalog look-ups of enum and domain types) runs on an ordinary connection: one given
 * with {@link Builder#adminConnection(Connection)} is never closed by the consumer; one
 * borrowed from {@link Builder#adminDataSource(DataSource)} is closed (returned) after
 * each use; with {@link Builder#jdbcUrl(String, String, String)} the consumer opens and
 * closes its own. Without any admin connection the slot and publication must already
 * exist and enum and domain values stay raw.
 */
public final class ReplicationConsumer {

	private static final Logger logger = LoggerFactory.getLogger(ReplicationConsumer.class);

	/** The size of a WAL page's short header, {@code SizeOfXLogShortPHD}. */
	private static final long PAGE_HEADER = 24;

	/** What {@link #stop()} may take beyond the stop timeout, at most. */
	private static final Duration STOP_GRACE = Duration.ofMillis(900);

	private final ConsumerConfig config;

	private final ConsumerStates states;

	private final AckWindow window;

	private final StreamingSpill spill;

	private final SubscriptionControls controls;

	private final Object lifecycle = new Object();

	private boolean started;

	private boolean stopped;

	private volatile @Nullable DeliveryContract contract;

	private ReplicationConsumer(ConsumerConfig config) {
		this.config = config;
		this.states = new ConsumerStates(config.listener(), config.slotName());
		this.window = new AckWindow(config.listener()::acknowledged, config.slotName());
		this.spill = new StreamingSpill(config.listener());
		this.controls = new SubscriptionControls(config.subscriptions(), config.slotName(),
				!config.checkpointStore().transactional() && !config.temporary(), config.listener());
	}

	/**
	 * Returns a builder.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Sets up the slot and publication as configured and starts streaming in the
	 * background.
	 * @throws io.postlog.PostlogException if set-up fails (the consumer is then
	 * {@code FAILED}); nothing is left half-created that the fault makes unsafe; a
	 * {@link SpillDirectoryException} if streaming may spill and its directory is not
	 * usable, before anything is set up
	 * @throws IllegalStateException if the consumer was started or stopped before
	 */
	public void start() {
		synchronized (this.lifecycle) {
			if (this.stopped) {
				throw new IllegalStateException("Consumer of slot " + this.config.slotName()
						+ " was stopped; a stopped consumer cannot be started, build a new one");
			}
			if (this.started) {
				throw new IllegalStateException("Consumer of slot " + this.config.slotName() + " was already started");
			}
			this.started = true;
			this.states.moveTo(ConsumerState.STARTING, null);
			ConsumerSetup.Result setup;
			try {
				checkSpillDirectory();
				setup = new ConsumerSetup(this.config).run();
			}
			catch (RuntimeException ex) {
				this.states.failed(ex);
				throw ex;
			}
			AdminConnections admin = this.config.admin();
			ValueDecoders decoders = (admin != null)
					? this.config.valueDecoders().withLookup(new CatalogTypeLookup(admin))
					: this.config.valueDecoders();
			DeliveryContract delivery = new DeliveryContract(this.config, setup, this.states, this.window, decoders,
					this.spill, this.controls);
			ConsumerBackfills runner = delivery.backfills();
			if (runner != null && this.config.backfill().newTables() && !setup.addedTables().isEmpty()) {
				logger.info("Consumer of slot {} backfills {}, which its publication did not publish before",
						this.config.slotName(), setup.addedTables());
				try {
					runner.submit(setup.addedTables());
				}
				catch (RuntimeException ex) {
					this.states.failed(ex);
					throw ex;
				}
			}
			this.contract = delivery;
			delivery.start();
		}
	}

	/**
	 * Finds an unusable spill directory at start, not at the first spill, which may come
	 * days later with the first large transaction.
	 */
	private void checkSpillDirectory() {
		StreamingOptions streaming = this.config.streaming();
		if (streaming != null && streaming.maxSpill() > 0) {
			SpillDirectory.check(streaming.spillDirectory());
		}
	}

	/**
	 * Stops the consumer: lets the transaction in delivery finish and waits for
	 * outstanding acknowledgements (within the stop timeout), sends the final
	 * acknowledgement, closes the stream and drops an {@code OWNED} slot. Returns within
	 * the stop timeout plus one second, with no thread or connection of the consumer
	 * left; a handler that did not return by then is interrupted and its transaction
	 * stays unacknowledged. Idempotent. Called from one of the consumer's own threads
	 * (inside a handler), it asks for the stop and returns at once; the consumer stops
	 * once the handler returned.
	 */
	public void stop() {
		DeliveryContract delivery;
		synchronized (this.lifecycle) {
			if (this.stopped) {
				return;
			}
			this.stopped = true;
			delivery = this.contract;
		}
		if (delivery == null) {
			this.states.end();
			return;
		}
		if (delivery.isConsumerThread()) {
			delivery.requestStop(this.config.stopTimeout());
			Thread stopper = new Thread(() -> stopAndWait(delivery), "postlog-stop-" + this.config.slotName());
			stopper.setDaemon(true);
			stopper.start();
			return;
		}
		stopAndWait(delivery);
	}

	private void stopAndWait(DeliveryContract delivery) {
		long start = System.nanoTime();
		long limit = start + this.config.stopTimeout().toNanos() + STOP_GRACE.toNanos();
		delivery.requestStop(this.config.stopTimeout());
		if (!delivery.awaitStopped(start + this.config.stopTimeout().toNanos() + STOP_GRACE.toNanos() / 2)) {
			logger.warn(
					"A handler of slot {} did not return within the stop timeout of {} ms; the transaction in "
							+ "delivery is not acknowledged",
					this.config.slotName(), this.config.stopTimeout().toMillis());
			delivery.abandon();
			if (!delivery.awaitStopped(limit)) {
				logger.warn("Threads of the consumer of slot {} still run after stop: {}", this.config.slotName(),
						delivery.aliveThreads());
			}
		}
		AdminConnections admin = this.config.admin();
		if (admin != null && this.config.slotLifecycle() == SlotLifecycle.OWNED) {
			ConsumerSetup.dropOwnedSlot(admin, this.config.slotName(),
					Duration.ofNanos(Math.max(0, limit - System.nanoTime())));
		}
		logger.info("Consumer of slot {} stopped at acknowledged position {}", this.config.slotName(),
				this.window.acked());
		this.states.end();
	}

	/**
	 * Returns the current state ({@code STOPPED} before {@link #start()}).
	 * @return the state
	 */
	public ConsumerState state() {
		return this.states.get();
	}

	/**
	 * Returns the position this consumer has acknowledged: the end of the last
	 * transaction that every subscription finished, or a later keepalive position while
	 * idle, but never past the position of a subscription that is not running; before the
	 * first acknowledgement, the slot's confirmed position when known, else
	 * {@link Lsn#INVALID}.
	 * @return the position
	 */
	public Lsn ackedLsn() {
		return this.window.acked();
	}

	/**
	 * Waits until every subscription has finished every transaction that ends at or
	 * before a position: until {@link #ackedLsn()} is at or past it. Give it a position
	 * read after the writing transaction committed (for example
	 * {@code pg_current_wal_insert_lsn()}), so that the transaction ends at or before it.
	 * While the stream is idle the server's keepalive position carries the acknowledged
	 * position on, so a position that no published change follows is reached too. When
	 * the last WAL record ended at the end of a WAL page,
	 * {@code pg_current_wal_insert_lsn()} reads 24 bytes further, past the next page's
	 * header, where the stream's positions do not go until another record is written (up
	 * to 15 s on an idle server); the wait is therefore for the position 24 bytes lower.
	 * That is exact: a commit record spans at least 40 bytes and the positions compared
	 * are ends of records, so no commit ends in between. (On the first page of a WAL
	 * segment the header is 40 bytes, and the wait can last until the next record.) A
	 * subscription that is not running holds the acknowledged position, so waiting on it
	 * lasts until it runs again or the timeout passes. May be called from any thread, by
	 * many at once, but not from inside one of this consumer's handlers (its own
	 * transaction would wait for itself).
	 * @param lsn the position
	 * @param timeout how long to wait at most
	 * @return {@code true} once delivered, {@code false} if the timeout passed first
	 * @throws InterruptedException if the calling thread is interrupted while waiting
	 */
	public boolean awaitDelivered(Lsn lsn, Duration timeout) throws InterruptedException {
		Objects.requireNonNull(lsn, "lsn");
		Objects.requireNonNull(timeout, "timeout");
		long target = Long.compareUnsigned(lsn.value(), PAGE_HEADER) > 0 ? lsn.value() - PAGE_HEADER : lsn.value();
		return this.window.awaitAcked(Lsn.of(target), timeout.toNanos());
	}

	/**
	 * Returns the control of one subscription: its state, and start, stop, pause and
	 * resume while the others go on.
	 * @param id the subscription's id
	 * @return the control
	 * @throws IllegalArgumentException if no subscription has that id
	 */
	public SubscriptionControl subscription(String id) {
		return this.controls.get(id);
	}

	/**
	 * Returns the controls of every subscription, in delivery order.
	 * @return the controls
	 */
	public List<SubscriptionControl> subscriptions() {
		return this.controls.all();
	}

	/**
	 * Returns the end of the last transaction every running subscription finished: the
	 * acknowledged position when every subscription runs, else possibly past it.
	 * @return the position
	 */
	public Lsn deliveredLsn() {
		return this.window.delivered();
	}

	/**
	 * Returns the progress of the initial snapshot being delivered, rows done and
	 * estimated per table, or of the one this consumer handed over.
	 * @return the progress, or {@code null} without an initial snapshot, before it began,
	 * or when the slot existed and was streamed without one
	 */
	public @Nullable SnapshotProgress snapshot() {
		DeliveryContract delivery = this.contract;
		return (delivery != null) ? delivery.snapshotProgress() : null;
	}

	/**
	 * Starts a backfill of some tables while the stream runs: their rows reach every
	 * subscription as {@link io.postlog.Operation#SNAPSHOT} changes, chunk by chunk in
	 * key order, between the stream's transactions, while the stream keeps flowing; a
	 * streamed change of a key wins over that key's chunk row. Backfills run one after
	 * the other; each is recorded in the progress table first and, after a restart,
	 * resumes at the chunk after the last one acknowledged. May be called from any thread
	 * once the consumer started.
	 * @param tables the tables, each published and with a primary key or replica identity
	 * index
	 * @return the backfill
	 * @throws BackfillQueueFullException if the consumer already holds
	 * {@link Builder#maxQueuedBackfills} unfinished backfills
	 * @throws io.postlog.snapshot.KeylessTableException if a table has no key
	 * @throws io.postlog.snapshot.BackfillRefusedException if a table cannot be
	 * backfilled otherwise (partitioned, its key not published)
	 * @throws io.postlog.snapshot.SnapshotReadException if a table does not exist or is
	 * not published, or the backfill cannot be recorded
	 * @throws IllegalStateException if the consumer is not started, or was built without
	 * backfills ({@link Builder#backfills(int)})
	 */
	public Backfill backfill(java.util.Collection<TableId> tables) {
		Objects.requireNonNull(tables, "tables");
		ConsumerBackfills runner = backfillRunner();
		return runner.request(tables);
	}

	/**
	 * Returns the backfills this consumer ran or runs, including those it resumed.
	 * @return the backfills, empty without backfills
	 */
	public List<Backfill> backfills() {
		DeliveryContract delivery = this.contract;
		ConsumerBackfills runner = (delivery != null) ? delivery.backfills() : null;
		return (runner != null) ? runner.backfills() : List.of();
	}

	private ConsumerBackfills backfillRunner() {
		DeliveryContract delivery;
		boolean ended;
		synchronized (this.lifecycle) {
			delivery = this.contract;
			ended = this.stopped;
		}
		if (delivery == null || ended) {
			throw new IllegalStateException("Consumer of slot " + this.config.slotName() + " is not running");
		}
		ConsumerBackfills runner = delivery.backfills();
		if (runner == null) {
			throw new IllegalStateException("Consumer of slot " + this.config.slotName()
					+ " was built without backfills: call backfills(chunkSize) on its builder");
		}
		return runner;
	}

	/**
	 * Returns the bytes of spill files that in-progress streamed transactions take on
	 * disk now; {@code 0} without streaming.
	 * @return the bytes
	 */
	public long spilledBytes() {
		return this.spill.bytes();
	}

	/**
	 * Returns the bytes written to spill files by streamed transactions since the
	 * consumer started, all sessions together; {@code 0} without streaming.
	 * @return the bytes
	 */
	public long spilledBytesTotal() {
		return this.spill.totalBytes();
	}

	/**
	 * Configures a {@link ReplicationConsumer}; {@link #build()} checks the configuration
	 * before anything touches the server. Not thread-safe.
	 */
	public static final class Builder extends ConsumerDeliveryBuilder<Builder> {

		private final List<Subscription> subscriptions = new ArrayList<>();

		private Builder() {
		}

		/**
		 * Adds a subscription; subscriptions are called in the order they were added.
		 * @param subscription the subscription
		 * @return this builder
		 */
		public Builder subscribe(Subscription subscription) {
			this.subscriptions.add(Objects.requireNonNull(subscription, "subscription"));
			return this;
		}

		/**
		 * Adds a change handler called for each change as it arrives, with the id
		 * {@code changeHandler}: shorthand for
		 * {@code subscribe(Subscription.onChange("changeHandler", handler))}.
		 * @param handler the handler
		 * @return this builder
		 */
		public Builder changeHandler(ChangeHandler handler) {
			return subscribe(Subscription.onChange("changeHandler", handler));
		}

		/**
		 * Adds a handler called once per transaction with at least one change, with the
		 * id {@code transactionHandler}.
		 * @param handler the handler
		 * @return this builder
		 */
		public Builder transactionHandler(TransactionHandler handler) {
			return subscribe(Subscription.onTransaction("transactionHandler", handler));
		}

		/**
		 * Adds a handler of logical decoding messages (PostgreSQL 14+), with the id
		 * {@code messageHandler}.
		 * @param handler the handler
		 * @return this builder
		 */
		public Builder messageHandler(MessageHandler handler) {
			return subscribe(Subscription.onMessage("messageHandler", handler));
		}

		/**
		 * Checks the configuration and builds the consumer; nothing touches the server.
		 * @return the consumer, not started
		 * @throws ReplicationConsumerException if the configuration is invalid
		 * @throws io.postlog.admin.InvalidIdentifierException if a name is invalid
		 */
		public ReplicationConsumer build() {
			int sources = ((this.streamFactory != null) ? 1 : 0) + ((this.connectionFactory != null) ? 1 : 0)
					+ ((this.jdbcUrl != null) ? 1 : 0);
			if (sources != 1) {
				throw new ReplicationConsumerException(
						"Configure exactly one of jdbcUrl, connectionFactory and streamFactory, not " + sources);
			}
			LogicalStreamFactory streams = this.streamFactory;
			ReplicationConnectionFactory connections = null;
			if (streams == null) {
				connections = (this.connectionFactory != null) ? this.connectionFactory : ReplicationConnectionFactory
					.of(Objects.requireNonNull(this.jdbcUrl), this.user, this.password);
				streams = new PgLogicalStreamFactory(connections,
						(this.connectTimeout != null) ? this.connectTimeout : Duration.ofSeconds(10));
			}
			return new ReplicationConsumer(
					new ConsumerConfig(this.slotName, this.slotLifecycle, this.publicationName, this.publicationMode,
							this.tables, this.filters, this.binary, decoder(), this.retryPolicy, this.reconnectPolicy,
							this.statusInterval, this.connectTimeout, this.maxTransactionChanges,
							this.maxUnacknowledged, this.readAheadEvents, this.readAheadBytes, this.stopTimeout,
							this.listener, this.valueDecoders, this.subscriptions, streams, adminConnections(),
							this.checkpointStore, this.checkpointBatch, this.checkpointBatchDelay, streamingOptions(),
							new WalSafety(this.failover, this.lostSlotAction, this.heartbeatMonitor,
									this.heartbeatTable),
							snapshotSettings(connections), backfillSettings(), this.unacknowledgedWarning, this.masks,
							this.ddlEvents));
		}

	}

}
