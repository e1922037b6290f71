package io.postlog.spring.boot.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.postlog.admin.LostSlotAction;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.spring.PostlogListenerRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties for postlog ({@code postlog.*}). Not thread-safe; bound once
 * at start-up.
 */
@ConfigurationProperties("postlog")
public class PostlogProperties {

	/**
	 * Whether to stream changes to the application's listeners.
	 */
	private boolean enabled = true;

	/**
	 * Comma-separated list of tables to publish, as schema.table or table (public);
	 * defaults to the union of the listeners' tables.
	 */
	private List<String> tables = new ArrayList<>();

	/**
	 * Logical decoding output plugin: pgoutput (PostgreSQL 10+), wal2json (format version
	 * 2) or pglogical (pglogical_output); listeners receive the same changes whatever the
	 * plugin.
	 */
	private Decoder decoder = Decoder.PGOUTPUT;

	/**
	 * Whether to ask the server for binary values. Defaults to binary where the decoder
	 * carries it (pgoutput on PostgreSQL 14+), text for wal2json and pglogical, which
	 * refuse binary asked for.
	 */
	private @Nullable Boolean binary;

	/**
	 * Interval between standby status updates sent to the server.
	 */
	private Duration statusInterval = Duration.ofSeconds(10);

	/**
	 * Most changes a transaction listener may receive in one transaction before the
	 * consumer fails.
	 */
	private int maxTransactionChanges = 100_000;

	/**
	 * Longest time a connect, login or START_REPLICATION of the replication connection
	 * may take before it is given up and retried.
	 */
	private Duration connectTimeout = Duration.ofSeconds(10);

	private final Slot slot = new Slot();

	private final Publication publication = new Publication();

	private final Snapshot snapshot = new Snapshot();

	private final Retry retry = new Retry();

	private final Reconnect reconnect = new Reconnect();

	private final Heartbeat heartbeat = new Heartbeat();

	private final Health health = new Health();

	private final Datasource datasource = new Datasource();

	private final Checkpoint checkpoint = new Checkpoint();

	private final Delivery delivery = new Delivery();

	private final Streaming streaming = new Streaming();

	private final Listener listener = new Listener();

	private final Endpoint endpoint = new Endpoint();

	private final Wal2json wal2json = new Wal2json();

	private final Pglogical pglogical = new Pglogical();

	/**
	 * Consumer groups by name, each with a slot and publication of its own.
	 */
	private final Map<String, Group> groups = new LinkedHashMap<>();

	public Listener getListener() {
		return this.listener;
	}

	public Endpoint getEndpoint() {
		return this.endpoint;
	}

	public Map<String, Group> getGroups() {
		return this.groups;
	}

	/**
	 * Returns the slot of a consumer group.
	 * @param group the group, empty for the default group
	 * @return {@code slot.name} for the default group, else
	 * {@code groups.<name>.slot.name} or {@code postlog_<name>}
	 */
	public String slotName(String group) {
		if (group.isEmpty()) {
			return this.slot.getName();
		}
		Group settings = this.groups.get(group);
		return (settings != null && settings.getSlot().getName() != null) ? settings.getSlot().getName()
				: "postlog_" + group;
	}

	/**
	 * Returns the publication of a consumer group.
	 * @param group the group, empty for the default group
	 * @return {@code publication.name} for the default group, else
	 * {@code groups.<name>.publication.name} or {@code postlog_<name>}
	 */
	public String publicationName(String group) {
		if (group.isEmpty()) {
			return this.publication.getName();
		}
		Group settings = this.groups.get(group);
		return (settings != null && settings.getPublication().getName() != null) ? settings.getPublication().getName()
				: "postlog_" + group;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public List<String> getTables() {
		return this.tables;
	}

	public void setTables(List<String> tables) {
		this.tables = tables;
	}

	public Decoder getDecoder() {
		return this.decoder;
	}

	public void setDecoder(Decoder decoder) {
		this.decoder = decoder;
	}

	public @Nullable Boolean getBinary() {
		return this.binary;
	}

	public void setBinary(@Nullable Boolean binary) {
		this.binary = binary;
	}

	public Wal2json getWal2json() {
		return this.wal2json;
	}

	public Pglogical getPglogical() {
		return this.pglogical;
	}

	public Duration getStatusInterval() {
		return this.statusInterval;
	}

	public void setStatusInterval(Duration statusInterval) {
		this.statusInterval = statusInterval;
	}

	public int getMaxTransactionChanges() {
		return this.maxTransactionChanges;
	}

	public void setMaxTransactionChanges(int maxTransactionChanges) {
		this.maxTransactionChanges = maxTransactionChanges;
	}

	public Duration getConnectTimeout() {
		return this.connectTimeout;
	}

	public void setConnectTimeout(Duration connectTimeout) {
		this.connectTimeout = connectTimeout;
	}

	public Delivery getDelivery() {
		return this.delivery;
	}

	public Streaming getStreaming() {
		return this.streaming;
	}

	public Slot getSlot() {
		return this.slot;
	}

	public Publication getPublication() {
		return this.publication;
	}

	public Snapshot getSnapshot() {
		return this.snapshot;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public Reconnect getReconnect() {
		return this.reconnect;
	}

	public Heartbeat getHeartbeat() {
		return this.heartbeat;
	}

	public Health getHealth() {
		return this.health;
	}

	public Datasource getDatasource() {
		return this.datasource;
	}

	public Checkpoint getCheckpoint() {
		return this.checkpoint;
	}

	/**
	 * Logical decoding output plugins.
	 */
	public enum Decoder {

		/** PostgreSQL's built-in pgoutput plugin (PostgreSQL 10+). */
		PGOUTPUT,

		/**
		 * The wal2json plugin, format version 2, streaming the tables of postlog.tables
		 * or the listeners (PostgreSQL 9.6+).
		 */
		WAL2JSON,

		/**
		 * pglogical's pglogical_output plugin, streaming
		 * postlog.pglogical.replication-sets (PostgreSQL 9.6+).
		 */
		PGLOGICAL

	}

	/**
	 * Settings of the wal2json decoder.
	 */
	public static class Wal2json {

		/**
		 * Whether to stream tables without a primary key or replica identity index (and
		 * not REPLICA IDENTITY FULL), whose updates and deletes wal2json drops, as
		 * insert-only tables; they are refused otherwise.
		 */
		private boolean allowInsertOnlyTables;

		/**
		 * Whether to ask wal2json for numbers as strings (numeric-data-types-as-string,
		 * wal2json 2.6+), which keeps NaN and Infinity; an older wal2json is refused at
		 * start.
		 */
		private boolean numbersAsStrings;

		/**
		 * Whether to stream float4, float8 and numeric columns without numbers as
		 * strings, accepting that their NaN and Infinity arrive as null; they are refused
		 * otherwise.
		 */
		private boolean allowNonFiniteAsNull;

		public boolean isAllowInsertOnlyTables() {
			return this.allowInsertOnlyTables;
		}

		public void setAllowInsertOnlyTables(boolean allowInsertOnlyTables) {
			this.allowInsertOnlyTables = allowInsertOnlyTables;
		}

		public boolean isNumbersAsStrings() {
			return this.numbersAsStrings;
		}

		public void setNumbersAsStrings(boolean numbersAsStrings) {
			this.numbersAsStrings = numbersAsStrings;
		}

		public boolean isAllowNonFiniteAsNull() {
			return this.allowNonFiniteAsNull;
		}

		public void setAllowNonFiniteAsNull(boolean allowNonFiniteAsNull) {
			this.allowNonFiniteAsNull = allowNonFiniteAsNull;
		}

	}

	/**
	 * Settings of the pglogical decoder.
	 */
	public static class Pglogical {

		/**
		 * Comma-separated list of the local pglogical node's replication sets whose
		 * tables are streamed.
		 */
		private List<String> replicationSets = new ArrayList<>(List.of("default"));

		public List<String> getReplicationSets() {
			return this.replicationSets;
		}

		public void setReplicationSets(List<String> replicationSets) {
			this.replicationSets = replicationSets;
		}

	}

	/**
	 * Delivery settings.
	 */
	public static class Delivery {

		/**
		 * Most transactions delivered but not yet acknowledged by every listener before
		 * delivery waits.
		 */
		private int maxUnacknowledged = 1000;

		/**
		 * Most message bytes the reader may read ahead of delivery (a single larger
		 * change passes alone).
		 */
		private DataSize readAhead = DataSize.ofMegabytes(32);

		/**
		 * How long an Acknowledgment may stay outstanding before a WARN names the
		 * listener and the change it is for; the endpoint and health show it meanwhile.
		 */
		private Duration unacknowledgedWarning = Duration.ofSeconds(60);

		public Duration getUnacknowledgedWarning() {
			return this.unacknowledgedWarning;
		}

		public void setUnacknowledgedWarning(Duration unacknowledgedWarning) {
			this.unacknowledgedWarning = unacknowledgedWarning;
		}

		public int getMaxUnacknowledged() {
			return this.maxUnacknowledged;
		}

		public void setMaxUnacknowledged(int maxUnacknowledged) {
			this.maxUnacknowledged = maxUnacknowledged;
		}

		public DataSize getReadAhead() {
			return this.readAhead;
		}

		public void setReadAhead(DataSize readAhead) {
			this.readAhead = readAhead;
		}

	}

	/**
	 * Listener settings.
	 */
	public static class Listener {

		/**
		 * What happens to a change a listener kept failing on once its retries ran out,
		 * for listeners that name no error handler of their own.
		 */
		private ErrorHandler errorHandler = ErrorHandler.STOP;

		public ErrorHandler getErrorHandler() {
			return this.errorHandler;
		}

		public void setErrorHandler(ErrorHandler errorHandler) {
			this.errorHandler = errorHandler;
		}

	}

	/**
	 * Settings of the postlog actuator endpoint.
	 */
	public static class Endpoint {

		/**
		 * Whether the endpoint shows the message of a listener's own exception (and of
		 * any failure that is not postlog's); off, it shows the exception's class only,
		 * since such messages often carry row values.
		 */
		private boolean showExceptionMessages;

		public boolean isShowExceptionMessages() {
			return this.showExceptionMessages;
		}

		public void setShowExceptionMessages(boolean showExceptionMessages) {
			this.showExceptionMessages = showExceptionMessages;
		}

	}

	/**
	 * Built-in listener error handlers.
	 */
	public enum ErrorHandler {

		/**
		 * Stop the listener's group (FAILED); nothing past the change is acknowledged.
		 */
		STOP,

		/** Log the change, count it in postlog.listener.skipped and go on. */
		SKIP,

		/** Write the change to postlog_dead_letter, count it, and go on. */
		DEAD_LETTER

	}

	/**
	 * A consumer group's settings.
	 */
	public static class Group {

		private final GroupSlot slot = new GroupSlot();

		private final GroupPublication publication = new GroupPublication();

		public GroupSlot getSlot() {
			return this.slot;
		}

		public GroupPublication getPublication() {
			return this.publication;
		}

	}

	/**
	 * A consumer group's slot.
	 */
	public static class GroupSlot {

		/**
		 * Name of the group's replication slot; defaults to postlog_ followed by the
		 * group's name.
		 */
		private @Nullable String name;

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(@Nullable String name) {
			this.name = name;
		}

	}

	/**
	 * A consumer group's publication.
	 */
	public static class GroupPublication {

		/**
		 * Name of the group's publication; defaults to postlog_ followed by the group's
		 * name.
		 */
		private @Nullable String name;

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(@Nullable String name) {
			this.name = name;
		}

	}

	/**
	 * Replication slot settings.
	 */
	public static class Slot {

		/**
		 * Name of the replication slot ([a-z0-9_], at most 63 characters).
		 */
		private String name = "postlog";

		/**
		 * How the slot is created and whether postlog drops it.
		 */
		private SlotLifecycle lifecycle = SlotLifecycle.CREATE_IF_MISSING;

		/**
		 * Whether to create the slot with failover enabled, so that standbys running with
		 * sync_replication_slots keep a copy of it (PostgreSQL 17+; refused before).
		 */
		private boolean failover;

		/**
		 * What to do when the slot is found lost (invalidated by the server, or missing
		 * where it existed): fail, or drop it, create a new one and skip the changes in
		 * between.
		 */
		private LostSlotAction onLost = LostSlotAction.FAIL;

		public String getName() {
			return this.name;
		}

		public boolean isFailover() {
			return this.failover;
		}

		public void setFailover(boolean failover) {
			this.failover = failover;
		}

		public LostSlotAction getOnLost() {
			return this.onLost;
		}

		public void setOnLost(LostSlotAction onLost) {
			this.onLost = onLost;
		}

		public void setName(String name) {
			this.name = name;
		}

		public SlotLifecycle getLifecycle() {
			return this.lifecycle;
		}

		public void setLifecycle(SlotLifecycle lifecycle) {
			this.lifecycle = lifecycle;
		}

	}

	/**
	 * Publication settings.
	 */
	public static class Publication {

		/**
		 * Name of the publication to stream.
		 */
		private String name = "postlog";

		/**
		 * Whether the publication must exist, is created if missing, or is kept in sync
		 * with the tables.
		 */
		private PublicationMode mode = PublicationMode.CREATE_IF_MISSING;

		public String getName() {
			return this.name;
		}

		public void setName(String name) {
			this.name = name;
		}

		public PublicationMode getMode() {
			return this.mode;
		}

		public void setMode(PublicationMode mode) {
			this.mode = mode;
		}

	}

	/**
	 * Initial snapshot settings.
	 */
	public static class Snapshot {

		/**
		 * Whether to read the published tables when postlog creates the slot, and deliver
		 * every row as a SNAPSHOT change before streaming from the slot's consistent
		 * point.
		 */
		private SnapshotMode mode = SnapshotMode.NEVER;

		/**
		 * Number of connections that read the snapshot at once, 1 to 64.
		 */
		private int parallelism = 2;

		/**
		 * About how many rows one chunk of a table holds; chunks are read one COPY each.
		 */
		private int chunkSize = 100_000;

		/**
		 * Table, as schema.table or table (public), in which a snapshot on PostgreSQL 10
		 * and 11 records whether it completed; created when needed. Unused from
		 * PostgreSQL 12 on.
		 */
		private String markerTable = "postlog_snapshot";

		/**
		 * Whether the tables that publication mode sync adds at start are backfilled
		 * while the others stream; default backfill when the mode is initial, else skip.
		 */
		private @Nullable NewTables newTables;

		/**
		 * Table, as schema.table or table (public), whose updates are the backfill
		 * watermarks before PostgreSQL 14; created and published when needed.
		 */
		private String watermarkTable = "postlog_watermark";

		/**
		 * Most backfills a consumer group holds unfinished (pending or running); a
		 * request past it is refused, before anything is recorded.
		 */
		private int maxQueuedBackfills = 16;

		public SnapshotMode getMode() {
			return this.mode;
		}

		public void setMode(SnapshotMode mode) {
			this.mode = mode;
		}

		public int getParallelism() {
			return this.parallelism;
		}

		public void setParallelism(int parallelism) {
			this.parallelism = parallelism;
		}

		public int getChunkSize() {
			return this.chunkSize;
		}

		public void setChunkSize(int chunkSize) {
			this.chunkSize = chunkSize;
		}

		public String getMarkerTable() {
			return this.markerTable;
		}

		public void setMarkerTable(String markerTable) {
			this.markerTable = markerTable;
		}

		public @Nullable NewTables getNewTables() {
			return this.newTables;
		}

		public void setNewTables(@Nullable NewTables newTables) {
			this.newTables = newTables;
		}

		public String getWatermarkTable() {
			return this.watermarkTable;
		}

		public void setWatermarkTable(String watermarkTable) {
			this.watermarkTable = watermarkTable;
		}

		public int getMaxQueuedBackfills() {
			return this.maxQueuedBackfills;
		}

		public void setMaxQueuedBackfills(int maxQueuedBackfills) {
			this.maxQueuedBackfills = maxQueuedBackfills;
		}

		/**
		 * Returns whether added tables are backfilled, the default applied.
		 * @return whether to backfill them
		 */
		public boolean backfillsNewTables() {
			return (this.newTables != null) ? this.newTables == NewTables.BACKFILL : this.mode == SnapshotMode.INITIAL;
		}

	}

	/**
	 * What happens to the tables publication mode sync adds at start.
	 */
	public enum NewTables {

		/** Backfill them while the other tables stream. */
		BACKFILL,

		/** Stream their changes from now on only. */
		SKIP

	}

	/**
	 * Initial snapshot modes.
	 */
	public enum SnapshotMode {

		/** Stream changes only. */
		NEVER,

		/**
		 * When postlog creates the slot, deliver every existing row as a SNAPSHOT change
		 * first.
		 */
		INITIAL

	}

	/**
	 * Back-off for failed listeners; lost connections use postlog.reconnect.
	 */
	public static class Retry {

		/**
		 * Wait after the first failure.
		 */
		private Duration initialInterval = Duration.ofMillis(500);

		/**
		 * Factor each further wait grows by.
		 */
		private double multiplier = 2;

		/**
		 * Longest wait between attempts.
		 */
		private Duration maxInterval = Duration.ofSeconds(30);

		/**
		 * Most deliveries of one transaction, the first included; -1 retries forever.
		 */
		private int maxAttempts = 10;

		public Duration getInitialInterval() {
			return this.initialInterval;
		}

		public void setInitialInterval(Duration initialInterval) {
			this.initialInterval = initialInterval;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxInterval() {
			return this.maxInterval;
		}

		public void setMaxInterval(Duration maxInterval) {
			this.maxInterval = maxInterval;
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

	}

	/**
	 * Back-off between attempts to reach the server again after the replication
	 * connection is lost, or while another process holds the slot; reconnecting never
	 * gives up and uses none of a listener's attempts. The default (100 ms, doubling, at
	 * most 5 s) tries a restart or failover often in its first seconds and then about
	 * every 5 s, so streaming resumes at most about 5 s after the server accepts
	 * connections again.
	 */
	public static class Reconnect {

		/**
		 * Wait after the connection is lost, before the first attempt.
		 */
		private Duration initialInterval = Duration.ofMillis(100);

		/**
		 * Factor each further wait grows by.
		 */
		private double multiplier = 2;

		/**
		 * Longest wait between attempts; bounds how long streaming stays stopped after
		 * the server is back.
		 */
		private Duration maxInterval = Duration.ofSeconds(5);

		public Duration getInitialInterval() {
			return this.initialInterval;
		}

		public void setInitialInterval(Duration initialInterval) {
			this.initialInterval = initialInterval;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxInterval() {
			return this.maxInterval;
		}

		public void setMaxInterval(Duration maxInterval) {
			this.maxInterval = maxInterval;
		}

	}

	/**
	 * Heartbeat settings.
	 */
	public static class Heartbeat {

		/**
		 * Interval between heartbeat messages written to the database so that an idle
		 * database does not pin WAL; unset for none.
		 */
		private @Nullable Duration interval;

		/**
		 * How long a heartbeat may take to come back through the stream before health is
		 * DOWN; defaults to five times the interval.
		 */
		private @Nullable Duration timeout;

		/**
		 * Table whose row for the slot is updated as the heartbeat before PostgreSQL 14,
		 * as schema.table or table (public); created if missing and published with the
		 * listeners' tables.
		 */
		private String table = "postlog_heartbeat";

		public @Nullable Duration getInterval() {
			return this.interval;
		}

		public void setInterval(@Nullable Duration interval) {
			this.interval = interval;
		}

		public @Nullable Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(@Nullable Duration timeout) {
			this.timeout = timeout;
		}

		public String getTable() {
			return this.table;
		}

		public void setTable(String table) {
			this.table = table;
		}

	}

	/**
	 * Health indicator settings.
	 */
	public static class Health {

		/**
		 * Slot lag above which the health indicator reports DOWN; unset for no limit.
		 */
		private @Nullable DataSize maxLag;

		/**
		 * WAL the slot may make the server keep (from its restart_lsn to the current
		 * position) before the health indicator reports DOWN; unset for no limit.
		 */
		private @Nullable DataSize maxRetained;

		/**
		 * Share of max_slot_wal_keep_size the slot may retain before the health indicator
		 * reports DOWN, so that it warns before the server invalidates the slot.
		 */
		private double maxRetainedRatio = 0.5;

		/**
		 * What the application's readiness follows: 'started' refuses traffic until every
		 * group first streams, then accepts it; 'delivering' also refuses it while a
		 * group is not delivering or a listener is stopped by its error handler. Liveness
		 * never depends on postlog.
		 */
		private PostlogListenerRegistry.Readiness readiness = PostlogListenerRegistry.Readiness.STARTED;

		public PostlogListenerRegistry.Readiness getReadiness() {
			return this.readiness;
		}

		public void setReadiness(PostlogListenerRegistry.Readiness readiness) {
			this.readiness = readiness;
		}

		/**
		 * How often a background thread reads each slot and the server for health, the
		 * endpoint and the meters, which never read the server themselves.
		 */
		private Duration pollInterval = Duration.ofSeconds(5);

		public @Nullable DataSize getMaxLag() {
			return this.maxLag;
		}

		public void setMaxLag(@Nullable DataSize maxLag) {
			this.maxLag = maxLag;
		}

		public @Nullable DataSize getMaxRetained() {
			return this.maxRetained;
		}

		public void setMaxRetained(@Nullable DataSize maxRetained) {
			this.maxRetained = maxRetained;
		}

		public double getMaxRetainedRatio() {
			return this.maxRetainedRatio;
		}

		public void setMaxRetainedRatio(double maxRetainedRatio) {
			this.maxRetainedRatio = maxRetainedRatio;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

	}

	/**
	 * Replication connection settings; default to the application's JDBC connection
	 * details.
	 */
	public static class Datasource {

		/**
		 * JDBC URL of the database to stream from.
		 */
		private @Nullable String url;

		/**
		 * Login user of the replication connection (needs the REPLICATION attribute).
		 */
		private @Nullable String username;

		/**
		 * Login password of the replication connection.
		 */
		private @Nullable String password;

		public @Nullable String getUrl() {
			return this.url;
		}

		public void setUrl(@Nullable String url) {
			this.url = url;
		}

		public @Nullable String getUsername() {
			return this.username;
		}

		public void setUsername(@Nullable String username) {
			this.username = username;
		}

		public @Nullable String getPassword() {
			return this.password;
		}

		public void setPassword(@Nullable String password) {
			this.password = password;
		}

	}

	/**
	 * Checkpoint settings.
	 */
	public static class Checkpoint {

		/**
		 * Where delivery progress is kept: the replication slot only (at least once), or
		 * also a checkpoint row written in each listener transaction on the application's
		 * DataSource (effect-once for database sinks).
		 */
		private CheckpointStore store = CheckpointStore.SLOT;

		/**
		 * Checkpoint table of the jdbc store, as table or schema.table; one row per slot.
		 */
		private String table = "postlog_checkpoint";

		/**
		 * Whether the jdbc store creates its checkpoint table when it is missing.
		 */
		private boolean createTable = true;

		/**
		 * Most source transactions one sink transaction of the jdbc store covers.
		 */
		private int batchTransactions = 1;

		/**
		 * Longest time a sink transaction of the jdbc store stays open for more source
		 * transactions; it commits at once when nothing more is waiting.
		 */
		private Duration batchMaxDelay = Duration.ofMillis(100);

		public CheckpointStore getStore() {
			return this.store;
		}

		public void setStore(CheckpointStore store) {
			this.store = store;
		}

		public String getTable() {
			return this.table;
		}

		public void setTable(String table) {
			this.table = table;
		}

		public boolean isCreateTable() {
			return this.createTable;
		}

		public void setCreateTable(boolean createTable) {
			this.createTable = createTable;
		}

		public int getBatchTransactions() {
			return this.batchTransactions;
		}

		public void setBatchTransactions(int batchTransactions) {
			this.batchTransactions = batchTransactions;
		}

		public Duration getBatchMaxDelay() {
			return this.batchMaxDelay;
		}

		public void setBatchMaxDelay(Duration batchMaxDelay) {
			this.batchMaxDelay = batchMaxDelay;
		}

	}

	/**
	 * Checkpoint stores.
	 */
	public enum CheckpointStore {

		/** The replication slot's confirmed position: at least once. */
		SLOT,

		/**
		 * A checkpoint table written in the listeners' transaction, through the
		 * application's transaction manager: effect-once for database sinks.
		 */
		JDBC

	}

	/**
	 * Settings for large transactions streamed while in progress (PostgreSQL 14+).
	 */
	public static class Streaming {

		/**
		 * Whether to have the server stream transactions larger than its
		 * logical_decoding_work_mem while they are in progress, instead of spilling them
		 * to its own disk until their commit. Needs PostgreSQL 14 or later; refused at
		 * start-up on older servers.
		 */
		private boolean enabled;

		/**
		 * Most bytes of in-progress streamed transactions kept on the heap, all together;
		 * the rest goes to spill files.
		 */
		private DataSize memory = DataSize.ofMegabytes(16);

		/**
		 * Directory under which each consumer keeps a private, owner-only directory of
		 * spill files. Defaults to the JVM's temporary directory (java.io.tmpdir); a
		 * tmpfs there holds the files in memory.
		 */
		private @Nullable Path spillDirectory;

		/**
		 * Most bytes of spill files, all in-progress transactions together; a transaction
		 * that needs more stops the consumer with an error naming the limit.
		 */
		private DataSize maxSpill = DataSize.ofGigabytes(10);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public DataSize getMemory() {
			return this.memory;
		}

		public void setMemory(DataSize memory) {
			this.memory = memory;
		}

		public @Nullable Path getSpillDirectory() {
			return this.spillDirectory;
		}

		public void setSpillDirectory(@Nullable Path spillDirectory) {
			this.spillDirectory = spillDirectory;
		}

		public DataSize getMaxSpill() {
			return this.maxSpill;
		}

		public void setMaxSpill(DataSize maxSpill) {
			this.maxSpill = maxSpill;
		}

	}

}
