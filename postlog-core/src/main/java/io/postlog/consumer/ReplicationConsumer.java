package io.postlog.consumer;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import javax.sql.DataSource;

import io.postlog.Lsn;
import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.spill.SpillDirectory;
import io.postlog.consumer.spill.SpillDirectoryException;
import io.postlog.consumer.spill.SpillLimitExceededException;
import io.postlog.consumer.spill.StreamingOptions;
import io.postlog.decoder.LogicalDecoder;
import io.postlog.decoder.PgOutputLogicalDecoder;
import io.postlog.heartbeat.HeartbeatMonitor;
import io.postlog.snapshot.SnapshotConnections;
import io.postlog.snapshot.SnapshotOptions;
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
		this.window = new AckWindow(config.listener(), config.slotName());
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
			BackfillRunner runner = delivery.backfills();
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
		BackfillRunner runner = backfillRunner();
		return runner.request(tables);
	}

	/**
	 * Returns the backfills this consumer ran or runs, including those it resumed.
	 * @return the backfills, empty without backfills
	 */
	public List<Backfill> backfills() {
		DeliveryContract delivery = this.contract;
		BackfillRunner runner = (delivery != null) ? delivery.backfills() : null;
		return (runner != null) ? runner.backfills() : List.of();
	}

	private BackfillRunner backfillRunner() {
		DeliveryContract delivery;
		boolean ended;
		synchronized (this.lifecycle) {
			delivery = this.contract;
			ended = this.stopped;
		}
		if (delivery == null || ended) {
			throw new IllegalStateException("Consumer of slot " + this.config.slotName() + " is not running");
		}
		BackfillRunner runner = delivery.backfills();
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
	public static final class Builder {

		private @Nullable LogicalStreamFactory streamFactory;

		private @Nullable ReplicationConnectionFactory connectionFactory;

		private @Nullable String jdbcUrl;

		private @Nullable String user;

		private @Nullable String password;

		private @Nullable Connection adminConnection;

		private @Nullable DataSource adminDataSource;

		private String slotName = "postlog";

		private SlotLifecycle slotLifecycle = SlotLifecycle.CREATE_IF_MISSING;

		private String publicationName = "postlog";

		private PublicationMode publicationMode = PublicationMode.CREATE_IF_MISSING;

		private List<TableId> tables = List.of();

		private final List<Subscription> subscriptions = new ArrayList<>();

		private @Nullable Boolean binary;

		private @Nullable LogicalDecoder decoder;

		private RetryPolicy retryPolicy = RetryPolicy.DEFAULT;

		private ReconnectPolicy reconnectPolicy = ReconnectPolicy.DEFAULT;

		private Duration statusInterval = Duration.ofSeconds(10);

		private Duration connectTimeout = Duration.ofSeconds(10);

		private int maxTransactionChanges = 100_000;

		private int maxUnacknowledged = 1000;

		private int readAheadEvents = 1024;

		private long readAheadBytes = 32L * 1024 * 1024;

		private ConsumerListener listener = new ConsumerListener() {
		};

		private ValueDecoders valueDecoders = ValueDecoders.standard();

		private Duration stopTimeout = Duration.ofSeconds(30);

		private Duration unacknowledgedWarning = Duration.ofSeconds(60);

		private CheckpointStore checkpointStore = CheckpointStore.slotOnly();

		private int checkpointBatch = 1;

		private Duration checkpointBatchDelay = Duration.ofMillis(100);

		private boolean streaming;

		private long streamingMemory;

		private @Nullable Path spillDirectory;

		private long maxSpill;

		private boolean initialSnapshot;

		private int snapshotParallelism = SnapshotOptions.DEFAULT_PARALLELISM;

		private int snapshotChunkSize = SnapshotOptions.DEFAULT_CHUNK_SIZE;

		private TableId snapshotMarkerTable = TableId.parse("postlog_snapshot");

		private @Nullable SnapshotConnections snapshotConnections;

		private int backfillChunkSize;

		private int maxQueuedBackfills = BackfillSettings.DEFAULT_MAX_QUEUED;

		private TableId watermarkTable = BackfillSettings.DEFAULT_WATERMARK_TABLE;

		private TableId backfillProgressTable = BackfillSettings.DEFAULT_PROGRESS_TABLE;

		private boolean backfillNewTables;

		private boolean failover;

		private LostSlotAction lostSlotAction = LostSlotAction.FAIL;

		private @Nullable HeartbeatMonitor heartbeatMonitor;

		private @Nullable TableId heartbeatTable;

		private Builder() {
		}

		/**
		 * Sets where fresh replication connections come from, one per (re)connect.
		 * @param factory the factory
		 * @return this builder
		 */
		public Builder connectionFactory(ReplicationConnectionFactory factory) {
			this.connectionFactory = factory;
			return this;
		}

		/**
		 * Connects to a database by URL, for replication and, unless another admin
		 * connection is set, for admin work on connections the consumer opens and closes.
		 * @param url the JDBC URL ({@code jdbc:postgresql://...})
		 * @param user the user, or {@code null}
		 * @param password the password, or {@code null}
		 * @return this builder
		 */
		public Builder jdbcUrl(String url, @Nullable String user, @Nullable String password) {
			this.jdbcUrl = url;
			this.user = user;
			this.password = password;
			return this;
		}

		/**
		 * Sets a connection for admin work, shared under a lock and never closed by the
		 * consumer.
		 * @param connection the connection, owned by the caller
		 * @return this builder
		 */
		public Builder adminConnection(Connection connection) {
			this.adminConnection = connection;
			return this;
		}

		/**
		 * Sets a data source for admin work; each connection is closed after one use.
		 * @param dataSource the data source
		 * @return this builder
		 */
		public Builder adminDataSource(DataSource dataSource) {
			this.adminDataSource = dataSource;
			return this;
		}

		/**
		 * Sets the slot name ({@code postlog} by default).
		 * @param slotName lower-case letters, digits and underscores, at most 63
		 * @return this builder
		 */
		public Builder slotName(String slotName) {
			this.slotName = slotName;
			return this;
		}

		/**
		 * Sets how the slot is managed ({@code CREATE_IF_MISSING} by default).
		 * @param lifecycle the lifecycle
		 * @return this builder
		 */
		public Builder slotLifecycle(SlotLifecycle lifecycle) {
			this.slotLifecycle = lifecycle;
			return this;
		}

		/**
		 * Sets the publication name ({@code postlog} by default).
		 * @param publicationName the name
		 * @return this builder
		 */
		public Builder publicationName(String publicationName) {
			this.publicationName = publicationName;
			return this;
		}

		/**
		 * Sets how the publication is managed ({@code CREATE_IF_MISSING} by default).
		 * @param mode the mode
		 * @return this builder
		 */
		public Builder publicationMode(PublicationMode mode) {
			this.publicationMode = mode;
			return this;
		}

		/**
		 * Sets the publication's tables.
		 * @param tables the tables
		 * @return this builder
		 */
		public Builder tables(List<TableId> tables) {
			this.tables = List.copyOf(tables);
			return this;
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
		 * Sets whether to stream values in binary. By default values are binary where the
		 * decoder can carry them: pgoutput from PostgreSQL 14 on (older servers get text,
		 * said once at start); wal2json and pglogical send text, also said once. Asked
		 * for explicitly, binary values are refused at start by a decoder that cannot
		 * carry them. A table with a column the server cannot send in binary (such as
		 * {@code aclitem[]}) makes the stream text, with one warning naming the columns.
		 * @param binary whether to ask for binary values
		 * @return this builder
		 */
		public Builder binary(boolean binary) {
			this.binary = binary;
			return this;
		}

		/**
		 * Sets the output plugin's decoder (by default pgoutput on the consumer's
		 * publication): {@link io.postlog.decoder.Wal2JsonDecoder} or
		 * {@link io.postlog.decoder.PgLogicalDecoder}, which choose their own tables and
		 * need an admin connection; the publication settings then do not apply. A
		 * {@link PgOutputLogicalDecoder} must name the consumer's publication. Listeners
		 * receive the same changes whatever the decoder; what a decoder cannot carry is
		 * refused at start, naming it.
		 * @param decoder the decoder
		 * @return this builder
		 */
		public Builder decoder(LogicalDecoder decoder) {
			this.decoder = decoder;
			return this;
		}

		/**
		 * Sets the back-off and attempts for failed handlers ({@link RetryPolicy#DEFAULT}
		 * by default). Lost connections use the {@link #reconnectPolicy reconnect
		 * policy}.
		 * @param retryPolicy the policy
		 * @return this builder
		 */
		public Builder retryPolicy(RetryPolicy retryPolicy) {
			this.retryPolicy = retryPolicy;
			return this;
		}

		/**
		 * Sets the back-off between reconnects after a lost connection and between looks
		 * at a slot another process holds ({@link ReconnectPolicy#DEFAULT} by default:
		 * 100 ms, doubling, at most 5 s). Reconnecting never gives up and uses none of a
		 * handler's attempts.
		 * @param reconnectPolicy the policy
		 * @return this builder
		 */
		public Builder reconnectPolicy(ReconnectPolicy reconnectPolicy) {
			this.reconnectPolicy = reconnectPolicy;
			return this;
		}

		/**
		 * Sets how often the server hears the acknowledged position at the latest (10 s
		 * by default); a moved position is sent within 200 ms anyway, and a status update
		 * that asks the server to answer goes out at least every 5 s (or a third of
		 * {@code wal_sender_timeout}) to tell a silent connection from a quiet one.
		 * @param statusInterval the interval
		 * @return this builder
		 */
		public Builder statusInterval(Duration statusInterval) {
			this.statusInterval = statusInterval;
			return this;
		}

		/**
		 * Sets the longest a connect, login or {@code START_REPLICATION} may take (10 s
		 * by default), so a server that accepts connections but does not answer cannot
		 * hang a reconnect.
		 * @param connectTimeout the timeout, at least one second is used
		 * @return this builder
		 */
		public Builder connectTimeout(Duration connectTimeout) {
			this.connectTimeout = connectTimeout;
			return this;
		}

		/**
		 * Sets how many transactions may be in flight, delivered but not yet acknowledged
		 * by every subscription, before delivery waits (1000 by default); the connection
		 * stays alive while it waits.
		 * @param maxUnacknowledged the limit
		 * @return this builder
		 */
		public Builder maxUnacknowledged(int maxUnacknowledged) {
			this.maxUnacknowledged = maxUnacknowledged;
			return this;
		}

		/**
		 * Sets how long an {@link io.postlog.Acknowledgment} may stay outstanding before
		 * a warning is logged naming the subscription and the change (60 s by default);
		 * {@link SubscriptionControl#oldestUnacknowledged()} shows it meanwhile.
		 * @param unacknowledgedWarning the bound
		 * @return this builder
		 */
		public Builder unacknowledgedWarning(Duration unacknowledgedWarning) {
			this.unacknowledgedWarning = unacknowledgedWarning;
			return this;
		}

		/**
		 * Sets the most changes a transaction handler may be given at once (100000 by
		 * default); a larger transaction fails the consumer.
		 * @param maxTransactionChanges the limit
		 * @return this builder
		 */
		public Builder maxTransactionChanges(int maxTransactionChanges) {
			this.maxTransactionChanges = maxTransactionChanges;
			return this;
		}

		/**
		 * Sets how far the reader may read ahead of delivery: at most this many events
		 * (1024 by default) standing for at most this many payload bytes (32 MB by
		 * default; a single larger change passes alone).
		 * @param events the most events
		 * @param bytes the most payload bytes
		 * @return this builder
		 */
		public Builder readAhead(int events, long bytes) {
			this.readAheadEvents = events;
			this.readAheadBytes = bytes;
			return this;
		}

		/**
		 * Sets the listener. The consumer calls it through a
		 * {@link GuardedConsumerListener}: an exception it throws (except from
		 * {@code snapshotStarted}) is logged by class and counted, and delivery goes on.
		 * To observe with several, pass {@link GuardedConsumerListener#of(List)}.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(ConsumerListener listener) {
			this.listener = listener;
			return this;
		}

		/**
		 * Sets the value decoders; with an admin connection the consumer adds a catalog
		 * look-up for enum and domain types.
		 * @param valueDecoders the decoders
		 * @return this builder
		 */
		public Builder valueDecoders(ValueDecoders valueDecoders) {
			this.valueDecoders = valueDecoders;
			return this;
		}

		/**
		 * Sets how long {@link ReplicationConsumer#stop()} waits for the transaction in
		 * delivery (30 s by default).
		 * @param stopTimeout the timeout
		 * @return this builder
		 */
		public Builder stopTimeout(Duration stopTimeout) {
			this.stopTimeout = stopTimeout;
			return this;
		}

		/**
		 * Sets where progress is kept besides the slot
		 * ({@link CheckpointStore#slotOnly()} by default); a transactional store makes
		 * delivery effect-once for a sink in its transactions.
		 * @param checkpointStore the store
		 * @return this builder
		 */
		public Builder checkpointStore(CheckpointStore checkpointStore) {
			this.checkpointStore = checkpointStore;
			return this;
		}

		/**
		 * Lets one sink transaction of a transactional checkpoint store cover up to
		 * {@code transactions} source transactions (1 by default), committing early when
		 * no more are waiting or when it has been open for {@code maxDelay} (100 ms by
		 * default), so that a trickle is not held back.
		 * @param transactions the most source transactions per sink transaction
		 * @param maxDelay the longest a sink transaction waits for more
		 * @return this builder
		 */
		public Builder checkpointBatch(int transactions, Duration maxDelay) {
			this.checkpointBatch = transactions;
			this.checkpointBatchDelay = maxDelay;
			return this;
		}

		/**
		 * Sets whether a slot the consumer creates fails over to physical standbys
		 * ({@code false} by default): PostgreSQL 17+ then keeps a copy of it on standbys
		 * running with {@code sync_replication_slots = on}, so that it survives a
		 * promotion. Refused at start before PostgreSQL 17, naming the server version,
		 * and at build for a temporary slot. An existing slot is kept as it is, with a
		 * warning when it does not fail over.
		 * @param failover whether to create the slot with failover
		 * @return this builder
		 */
		public Builder failover(boolean failover) {
			this.failover = failover;
			return this;
		}

		/**
		 * Sets what to do when the slot is found lost, at start (invalidated by the
		 * server) or on a reconnect (invalidated, or missing although it existed):
		 * {@link LostSlotAction#FAIL} (the default) fails with a
		 * {@link io.postlog.admin.SlotLostException}; {@link LostSlotAction#RECREATE}
		 * drops the slot, creates a new one and streams from there, logging at ERROR that
		 * the changes in between were skipped. Either way
		 * {@link ConsumerListener#slotLost} hears of it first. A lost slot is never
		 * recreated silently; {@code RECREATE} is refused for an {@code EXISTING} slot.
		 * Needs an admin connection; temporary slots are never lost.
		 * @param action what to do
		 * @return this builder
		 */
		public Builder lostSlotAction(LostSlotAction action) {
			this.lostSlotAction = Objects.requireNonNull(action, "action");
			return this;
		}

		/**
		 * Sets the monitor told of every heartbeat that comes back through the stream
		 * (when delivery reaches it) and of every stream start, for example a
		 * {@link io.postlog.heartbeat.HeartbeatTracker}. The consumer writes no
		 * heartbeats itself ({@link io.postlog.heartbeat.HeartbeatWriter} does); it asks
		 * the server for logical messages on PostgreSQL 14+ even without a message
		 * subscription, and before 14 creates and publishes the heartbeat table. Whether
		 * or not a monitor is set, heartbeats (messages with the prefix
		 * {@value io.postlog.heartbeat.Heartbeat#PREFIX}, and before 14 the changes of
		 * the heartbeat table) reach no subscription.
		 * @param monitor the monitor
		 * @return this builder
		 */
		public Builder heartbeatMonitor(HeartbeatMonitor monitor) {
			this.heartbeatMonitor = Objects.requireNonNull(monitor, "monitor");
			return this;
		}

		/**
		 * Sets the heartbeat table, whose rows are the heartbeats before PostgreSQL 14
		 * ({@link io.postlog.heartbeat.HeartbeatWriter#DEFAULT_TABLE} by default). Its
		 * changes then reach no subscription, also without a monitor (for a consumer that
		 * shares a database with the one that tracks them); only with a monitor does the
		 * consumer create and publish it. Without an admin connection the consumer cannot
		 * read the server version: heartbeats are then this table's rows when it is set,
		 * else logical messages.
		 * @param table the table
		 * @return this builder
		 */
		public Builder heartbeatTable(TableId table) {
			this.heartbeatTable = Objects.requireNonNull(table, "table");
			return this;
		}

		/**
		 * Asks the server to stream large transactions while they are in progress
		 * (PostgreSQL 14+, pgoutput protocol 2; refused at start on older servers)
		 * instead of buffering them until their commit, which it does in its own memory
		 * and then in spill files under {@code pg_replslot}. The consumer keeps each
		 * in-progress transaction in up to {@code memory} bytes of heap, all together,
		 * spills the rest to files under {@code spillDirectory} (in a private directory,
		 * owner-only, removed when the transaction commits or aborts and when the
		 * consumer stops or next starts), and delivers it at its commit exactly as
		 * without streaming: same order, indexes, ids, commit LSN and time; aborted
		 * transactions and rolled back savepoints are dropped. A transaction that needs
		 * more than {@code maxSpill} bytes of spill files fails the consumer with a
		 * {@link SpillLimitExceededException} and nothing from it on is acknowledged.
		 * Streaming does not make the slot retain less WAL: the slot still keeps it back
		 * to the start of the oldest open transaction.
		 * @param memory the most bytes of stream messages kept on the heap
		 * @param spillDirectory the directory to spill under (a tmpfs holds its files in
		 * memory)
		 * @param maxSpill the most bytes of spill files; 0 allows no spilling
		 * @return this builder
		 */
		public Builder streaming(long memory, Path spillDirectory, long maxSpill) {
			this.streaming = true;
			this.streamingMemory = memory;
			this.spillDirectory = spillDirectory;
			this.maxSpill = maxSpill;
			return this;
		}

		/**
		 * Takes an initial snapshot when the consumer creates the slot: every row of the
		 * publication's tables, read under the snapshot the server exports with the slot,
		 * is delivered as an {@link io.postlog.Operation#SNAPSHOT} change before the
		 * stream starts at the slot's consistent point, so that nothing is missed or seen
		 * twice across the hand-off. The tables are read on {@code parallelism} ordinary
		 * connections in chunks of about {@code chunkSize} rows with {@code COPY}, binary
		 * unless {@link #binary(boolean)} is off (on every server version), and decoded
		 * by the consumer's value decoders; rows reach the subscriptions on the delivery
		 * thread and their lanes as stream changes do, in bounded memory. State
		 * {@link ConsumerState#SNAPSHOT} while it runs.
		 * <p>
		 * Crash-safe: the slot streams only after a complete snapshot was delivered
		 * (every handler returned and acknowledged); a crash, a lost connection or a
		 * failure before that leads to a new snapshot, never to streaming after a partial
		 * one (see {@link io.postlog.snapshot.SnapshotHandOff}). A slot that exists is
		 * streamed without a snapshot. {@link ConsumerListener#snapshotStarted} tells
		 * when a snapshot begins, so that a read model can start over.
		 * <p>
		 * {@code Transaction} subscriptions receive the snapshot in batches of up to 256
		 * rows (and at most {@code maxTransactionChanges}), each a {@code Transaction}
		 * with xid 0 whose commit and end LSN are the consistent point; the batches count
		 * as transactions for {@link #maxUnacknowledged(int)}. Refused at build with a
		 * temporary slot (use {@code OWNED}), a transactional checkpoint store, or
		 * without an admin connection; at start for a slot of lifecycle {@code EXISTING},
		 * which already has a position.
		 * @param parallelism connections reading at once, 1 to 64
		 * ({@value SnapshotOptions#DEFAULT_PARALLELISM} by default)
		 * @param chunkSize about how many rows one chunk holds, at least 1
		 * ({@value SnapshotOptions#DEFAULT_CHUNK_SIZE} by default)
		 * @return this builder
		 */
		public Builder initialSnapshot(int parallelism, int chunkSize) {
			this.initialSnapshot = true;
			this.snapshotParallelism = parallelism;
			this.snapshotChunkSize = chunkSize;
			return this;
		}

		/**
		 * Sets the table in which an initial snapshot on PostgreSQL 10 and 11, which
		 * cannot copy slots, records whether it completed
		 * ({@code public.postlog_snapshot} by default; created when needed). Unused from
		 * PostgreSQL 12 on.
		 * @param table the table
		 * @return this builder
		 */
		public Builder snapshotMarkerTable(TableId table) {
			this.snapshotMarkerTable = Objects.requireNonNull(table, "table");
			return this;
		}

		/**
		 * Sets where the connections that read an initial snapshot come from: one per
		 * reader, closed after the read; they must reach the database the slot is in. By
		 * default they are opened from {@link #jdbcUrl(String, String, String)}, else
		 * borrowed from {@link #adminDataSource(DataSource)}.
		 * @param connections opens the reader connections
		 * @return this builder
		 */
		public Builder snapshotConnections(SnapshotConnections connections) {
			this.snapshotConnections = Objects.requireNonNull(connections, "connections");
			return this;
		}

		/**
		 * Lets this consumer backfill tables while it streams
		 * ({@link ReplicationConsumer#backfill}), and resume the backfills a previous run
		 * left unfinished. Chunks are read on connections of their own (from
		 * {@link #snapshotConnections}, the admin data source or the JDBC URL); on
		 * PostgreSQL 14 and later the stream then carries logical decoding messages.
		 * @param chunkSize the most rows one chunk holds, and so in memory at once
		 * @return this builder
		 */
		public Builder backfills(int chunkSize) {
			this.backfillChunkSize = chunkSize;
			return this;
		}

		/**
		 * Sets the most unfinished backfills (pending or running) this consumer holds
		 * (default 16): {@link ReplicationConsumer#backfill} past it throws
		 * {@link BackfillQueueFullException}, before anything is recorded. Backfills
		 * resumed after a restart and those of {@link #backfillNewTables} count, and are
		 * never refused.
		 * @param maxQueued the bound, at least 1
		 * @return this builder
		 */
		public Builder maxQueuedBackfills(int maxQueued) {
			this.maxQueuedBackfills = maxQueued;
			return this;
		}

		/**
		 * Backfills, once streaming, the tables that publication mode {@code SYNC} adds
		 * to the publication at start (unless an initial snapshot reads them now): a
		 * deploy that adds a listener on a table gets its rows as {@code SNAPSHOT}
		 * changes while the other tables stream. Needs {@link #backfills(int)}.
		 * @param newTables whether to backfill them
		 * @return this builder
		 */
		public Builder backfillNewTables(boolean newTables) {
			this.backfillNewTables = newTables;
			return this;
		}

		/**
		 * Sets the table whose updates are the backfill watermarks before PostgreSQL 14
		 * (default {@code public.postlog_watermark}); it is created and published when
		 * missing.
		 * @param table the table
		 * @return this builder
		 */
		public Builder watermarkTable(TableId table) {
			this.watermarkTable = Objects.requireNonNull(table, "table");
			return this;
		}

		/**
		 * Sets the table backfill progress is recorded in (default
		 * {@code public.postlog_backfill}); it is created when missing.
		 * @param table the table
		 * @return this builder
		 */
		public Builder backfillProgressTable(TableId table) {
			this.backfillProgressTable = Objects.requireNonNull(table, "table");
			return this;
		}

		/**
		 * Opens streams with this factory instead of over pgjdbc; for tests.
		 * @param streamFactory the factory
		 * @return this builder
		 */
		public Builder streamFactory(LogicalStreamFactory streamFactory) {
			this.streamFactory = streamFactory;
			return this;
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
			return new ReplicationConsumer(new ConsumerConfig(this.slotName, this.slotLifecycle, this.publicationName,
					this.publicationMode, this.tables, this.binary, decoder(), this.retryPolicy, this.reconnectPolicy,
					this.statusInterval, this.connectTimeout, this.maxTransactionChanges, this.maxUnacknowledged,
					this.readAheadEvents, this.readAheadBytes, this.stopTimeout, this.listener, this.valueDecoders,
					this.subscriptions, streams, adminConnections(), this.checkpointStore, this.checkpointBatch,
					this.checkpointBatchDelay, streamingOptions(),
					new WalSafety(this.failover, this.lostSlotAction, this.heartbeatMonitor, this.heartbeatTable),
					snapshotSettings(connections), backfillSettings(), this.unacknowledgedWarning));
		}

		private @Nullable BackfillSettings backfillSettings() {
			if (this.backfillChunkSize == 0) {
				if (this.backfillNewTables) {
					throw new ReplicationConsumerException(
							"Backfilling new tables needs backfills: call " + "backfills(chunkSize) as well");
				}
				return null;
			}
			SnapshotConnections readers = readers();
			if (readers == null) {
				throw new ReplicationConsumerException("A backfill reads the tables on connections of its own, which "
						+ "one shared admin connection cannot give: set snapshotConnections, adminDataSource or "
						+ "jdbcUrl");
			}
			return new BackfillSettings(this.backfillChunkSize, this.watermarkTable, this.backfillProgressTable,
					readers, this.backfillNewTables, this.maxQueuedBackfills);
		}

		private @Nullable SnapshotConnections readers() {
			if (this.snapshotConnections != null) {
				return this.snapshotConnections;
			}
			if (this.jdbcUrl != null) {
				return SnapshotConnections.of(this.jdbcUrl, this.user, this.password);
			}
			return (this.adminDataSource != null) ? SnapshotConnections.of(this.adminDataSource) : null;
		}

		private @Nullable SnapshotSettings snapshotSettings(@Nullable ReplicationConnectionFactory replication) {
			if (!this.initialSnapshot) {
				return null;
			}
			if (replication == null) {
				throw new ReplicationConsumerException("An initial snapshot creates the slot on a replication "
						+ "connection of its own: set jdbcUrl or connectionFactory, not streamFactory");
			}
			SnapshotConnections readers = this.snapshotConnections;
			if (readers == null && this.jdbcUrl != null) {
				readers = SnapshotConnections.of(this.jdbcUrl, this.user, this.password);
			}
			if (readers == null && this.adminDataSource != null) {
				readers = SnapshotConnections.of(this.adminDataSource);
			}
			if (readers == null) {
				throw new ReplicationConsumerException("An initial snapshot reads the tables on connections of its "
						+ "own, which one shared admin connection cannot give: set snapshotConnections, "
						+ "adminDataSource or jdbcUrl");
			}
			try {
				SnapshotOptions options = SnapshotOptions.defaults()
					.withParallelism(this.snapshotParallelism)
					.withChunkSize(this.snapshotChunkSize)
					.withBinary(!Boolean.FALSE.equals(this.binary))
					.withPublication(this.publicationName);
				return new SnapshotSettings(options, this.snapshotMarkerTable, replication, readers);
			}
			catch (IllegalArgumentException ex) {
				throw new ReplicationConsumerException("Invalid consumer configuration: " + ex.getMessage());
			}
		}

		private @Nullable LogicalDecoder decoder() {
			if (this.decoder != null || this.publicationName == null) {
				return this.decoder;
			}
			return PgOutputLogicalDecoder.forPublications(List.of(this.publicationName));
		}

		private @Nullable StreamingOptions streamingOptions() {
			if (!this.streaming) {
				return null;
			}
			try {
				return new StreamingOptions(this.streamingMemory, Objects.requireNonNull(this.spillDirectory),
						this.maxSpill);
			}
			catch (IllegalArgumentException | NullPointerException ex) {
				throw new ReplicationConsumerException("Invalid consumer configuration: streaming (" + ex.getMessage()
						+ "; memory and maxSpill not negative, a spill directory)");
			}
		}

		private @Nullable AdminConnections adminConnections() {
			if (this.adminConnection != null) {
				return AdminConnections.shared(this.adminConnection);
			}
			if (this.adminDataSource != null) {
				return AdminConnections.of(this.adminDataSource);
			}
			return (this.jdbcUrl != null && this.streamFactory == null)
					? AdminConnections.of(this.jdbcUrl, this.user, this.password) : null;
		}

	}

}
