package io.postlog.consumer;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.PgIdentifiers;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.admin.TableFilter;
import io.postlog.consumer.backfill.BackfillSettings;
import io.postlog.consumer.delivery.Recipient;
import io.postlog.consumer.spill.StreamingOptions;
import io.postlog.decoder.LogicalDecoder;
import io.postlog.decoder.PgOutputLogicalDecoder;
import io.postlog.decoder.TableSelection;
import io.postlog.stream.LogicalStreamFactory;
import io.postlog.stream.PgLogicalStreamFactory;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;

/**
 * A consumer's configuration, checked once when it is built and never changed after.
 * Names follow {@link PgIdentifiers}: slot names PostgreSQL's rule, other names anything
 * but NUL within 63 bytes, always quoted; publication names also may not hold a single
 * quote, which {@code START_REPLICATION} cannot carry.
 *
 * @param slotName the slot
 * @param slotLifecycle how the slot is managed
 * @param publicationName the publication
 * @param publicationMode how the publication is managed
 * @param tables the tables to publish, empty for the publication as it is (or all tables)
 * @param filters row filters and column lists to push into the publication, by table
 * (each among the tables; pgoutput only)
 * @param binary whether to ask for binary values, or {@code null} for the decoder's
 * default (binary where it can carry them)
 * @param decoder the output plugin's decoder: which plugin, its options, its tables
 * @param retryPolicy back-off and attempts for failed handlers
 * @param reconnectPolicy back-off for lost connections and for a slot held elsewhere
 * (reconnecting never gives up)
 * @param statusInterval how often the server hears the acknowledged position at the
 * latest
 * @param connectTimeout the longest a connect, login or {@code START_REPLICATION} may
 * take
 * @param maxTransactionChanges the most changes a transaction handler is given at once
 * @param maxUnacknowledged the most transactions in flight (delivered, not yet
 * acknowledged) before delivery waits
 * @param readAheadEvents the most events read ahead of delivery
 * @param readAheadBytes the most payload bytes read ahead of delivery (one event may
 * exceed it alone)
 * @param stopTimeout how long {@link ReplicationConsumer#stop()} lets delivery finish
 * @param listener the observer, guarded ({@link GuardedConsumerListener})
 * @param valueDecoders the value decoders
 * @param subscriptions the handlers, in delivery order
 * @param streams opens the streams
 * @param admin ordinary connections for set-up and checks, or {@code null}
 * @param checkpointStore where progress is kept besides the slot
 * @param checkpointBatch the most source transactions one sink transaction of a
 * transactional store covers
 * @param checkpointBatchDelay the longest a sink transaction stays open for more source
 * transactions
 * @param streaming how to buffer in-progress transactions the server streams, or
 * {@code null} to have the server send each transaction at its commit
 * @param walSafety failover, what to do with a lost slot, and heartbeats
 * @param snapshot how to take the initial snapshot when the slot is created, or
 * {@code null} to stream only
 * @param backfill how to backfill tables while streaming, or {@code null} for no
 * backfills
 * @param unacknowledgedWarning how long an {@code Acknowledgment} may stay outstanding
 * before a warning names its subscription and change
 * @param ddlEvents whether postlog's DDL event triggers are installed and read
 * @param masks column masks applied before any subscription sees a change, or
 * {@code null} for none
 */
record ConsumerConfig(String slotName, SlotLifecycle slotLifecycle, String publicationName,
		PublicationMode publicationMode, List<TableId> tables, Map<TableId, TableFilter> filters,
		@Nullable Boolean binary, LogicalDecoder decoder, RetryPolicy retryPolicy, ReconnectPolicy reconnectPolicy,
		Duration statusInterval, Duration connectTimeout, int maxTransactionChanges, int maxUnacknowledged,
		int readAheadEvents, long readAheadBytes, Duration stopTimeout, ConsumerListener listener,
		ValueDecoders valueDecoders, List<Subscription> subscriptions, LogicalStreamFactory streams,
		@Nullable AdminConnections admin, CheckpointStore checkpointStore, int checkpointBatch,
		Duration checkpointBatchDelay, @Nullable StreamingOptions streaming, WalSafety walSafety,
		@Nullable SnapshotSettings snapshot, @Nullable BackfillSettings backfill, Duration unacknowledgedWarning,
		@Nullable ColumnMasks masks, boolean ddlEvents) {

	ConsumerConfig {
		require(slotName != null, "slotName");
		PgIdentifiers.requireSlotName(slotName);
		require(publicationName != null, "publicationName");
		PgLogicalStreamFactory.requireStreamable(publicationName);
		require(slotLifecycle != null, "slotLifecycle");
		require(publicationMode != null, "publicationMode");
		require(tables != null, "tables");
		tables = List.copyOf(tables);
		for (TableId table : tables) {
			PgIdentifiers.requireName("schema", table.schema());
			PgIdentifiers.requireName("table", table.name());
		}
		require(filters != null, "filters");
		filters = Map.copyOf(filters);
		require(subscriptions != null && !subscriptions.isEmpty(),
				"handlers (configure at least one subscription, change, transaction or message handler)");
		subscriptions = List.copyOf(subscriptions);
		Set<String> ids = new HashSet<>();
		for (Subscription subscription : subscriptions) {
			if (!ids.add(subscription.id())) {
				throw new ReplicationConsumerException(
						"Invalid consumer configuration: two subscriptions have the id '" + subscription.id() + "'");
			}
		}
		require(decoder != null, "decoder");
		if (decoder instanceof PgOutputLogicalDecoder
				&& !decoder.tableSelection().equals(new TableSelection.Publications(List.of(publicationName)))) {
			throw new ReplicationConsumerException("Invalid consumer configuration: a pgoutput decoder streams the "
					+ "consumer's publication '" + publicationName + "', not " + decoder.tableSelection()
					+ "; set the publication with publicationName");
		}
		if (!filters.isEmpty() && !(decoder instanceof PgOutputLogicalDecoder)) {
			throw new ReplicationConsumerException("Row filters and column lists are pushed into the publication, "
					+ "which only the pgoutput decoder reads, not " + decoder.name() + ": remove the filters or "
					+ "stream with pgoutput");
		}
		if (!filters.isEmpty() && admin == null) {
			throw new ReplicationConsumerException("Row filters and column lists are pushed into the publication, "
					+ "which needs an admin connection: set adminConnection, adminDataSource or jdbcUrl");
		}
		if (admin == null && !(decoder instanceof PgOutputLogicalDecoder)) {
			throw new ReplicationConsumerException("Decoder " + decoder.name() + " reads the catalog for what its "
					+ "plugin does not send (relations, types), which needs an admin connection: set "
					+ "adminConnection, adminDataSource or jdbcUrl");
		}
		if (ddlEvents && admin == null) {
			throw new ReplicationConsumerException("DDL events install event triggers, which needs an admin "
					+ "connection: set adminConnection, adminDataSource or jdbcUrl");
		}
		if (admin == null && slotLifecycle == SlotLifecycle.OWNED) {
			throw new ReplicationConsumerException("An OWNED slot is dropped on stop, which needs an admin "
					+ "connection: set adminConnection, adminDataSource or jdbcUrl");
		}
		require(retryPolicy != null, "retryPolicy");
		require(reconnectPolicy != null, "reconnectPolicy");
		positive(statusInterval, "statusInterval");
		positive(connectTimeout, "connectTimeout");
		require(stopTimeout != null && !stopTimeout.isNegative(), "stopTimeout (not negative)");
		require(maxTransactionChanges > 0, "maxTransactionChanges (at least 1)");
		require(maxUnacknowledged > 0, "maxUnacknowledged (at least 1)");
		require(readAheadEvents > 0, "readAhead events (at least 1)");
		require(readAheadBytes > 0, "readAhead bytes (at least 1)");
		Objects.requireNonNull(listener, "listener");
		// The one guard of observer failures: the consumer calls it without a try.
		listener = GuardedConsumerListener.of(listener);
		require(valueDecoders != null, "valueDecoders");
		Objects.requireNonNull(streams, "streams");
		require(checkpointStore != null, "checkpointStore");
		require(checkpointBatch > 0, "checkpoint batch (at least 1 transaction)");
		positive(checkpointBatchDelay, "checkpoint batch delay");
		require(walSafety != null, "walSafety");
		if (walSafety.failover() && slotLifecycle == SlotLifecycle.TEMPORARY) {
			throw new ReplicationConsumerException("A temporary slot cannot fail over (PostgreSQL synchronises only "
					+ "permanent slots to standbys): use another slot lifecycle or turn failover off");
		}
		if (walSafety.lostSlotAction() == LostSlotAction.RECREATE && slotLifecycle == SlotLifecycle.EXISTING) {
			throw new ReplicationConsumerException("Recreating a lost slot needs a slot lifecycle under which the "
					+ "consumer creates slots, not EXISTING: use CREATE_IF_MISSING or OWNED, or fail on a lost slot");
		}
		if (snapshot != null) {
			requireSnapshotSupported(slotLifecycle, admin, checkpointStore, backfill != null, walSafety);
			if (!(decoder instanceof PgOutputLogicalDecoder)) {
				// The snapshot's slot is created, and its position handed over, for
				// pgoutput.
				throw new ReplicationConsumerException("An initial snapshot is taken for the pgoutput plugin only, not "
						+ decoder.plugin() + ": stream with pgoutput, or without an initial snapshot");
			}
		}
		if ((backfill != null || snapshot != null) && checkpointStore.transactional()
				&& !checkpointStore.recordsChunks()) {
			throw new ReplicationConsumerException("Snapshot and backfill chunks are delivered inside sink "
					+ "transactions with their marks, which " + checkpointStore + " does not record (recordsChunks()): "
					+ "use JdbcCheckpointStore, or the slot-only store with snapshots and backfills");
		}
		if (checkpointStore.transactional()) {
			for (Subscription subscription : subscriptions) {
				if (subscription.concurrency() > 1 || subscription.acknowledging() || !subscription.autoStartup()) {
					throw new IncompatibleSubscriptionException(subscription, checkpointStore);
				}
			}
		}
		if (slotLifecycle == SlotLifecycle.TEMPORARY) {
			for (Subscription subscription : subscriptions) {
				if (!subscription.autoStartup()) {
					throw new ReplicationConsumerException("Subscription '" + subscription.id() + "' does not start "
							+ "with the consumer, which a temporary slot cannot allow: it keeps no position across "
							+ "sessions for the subscription to start from; use a permanent slot");
				}
			}
		}
		positive(unacknowledgedWarning, "unacknowledgedWarning");
		masks = (masks != null && masks.isEmpty()) ? null : masks;
	}

	private static void requireSnapshotSupported(SlotLifecycle slotLifecycle, @Nullable AdminConnections admin,
			CheckpointStore checkpointStore, boolean backfills, WalSafety walSafety) {
		if (admin == null) {
			throw new ReplicationConsumerException("An initial snapshot creates the slot and reads the tables, which "
					+ "needs an admin connection: set adminDataSource or jdbcUrl");
		}
		if (slotLifecycle == SlotLifecycle.TEMPORARY) {
			throw new ReplicationConsumerException("An initial snapshot is handed over to a slot that outlives its "
					+ "connection, and a temporary slot ends with it: use slot lifecycle OWNED (dropped on stop) or "
					+ "CREATE_IF_MISSING");
		}
		if (checkpointStore.transactional() && !backfills) {
			throw new ReplicationConsumerException("An initial snapshot delivered inside the sink transactions of a "
					+ "transactional checkpoint store resumes after a crash through a backfill, chunk by chunk: turn "
					+ "backfills on, or use the slot-only store with it");
		}
		if (walSafety.failover()) {
			// From 12 the slot is a copy of the snapshot's temporary slot, and PostgreSQL
			// neither gives a temporary slot failover nor copies it.
			throw new ReplicationConsumerException("An initial snapshot hands over to a slot that PostgreSQL creates "
					+ "without failover: turn failover off, and once the slot exists enable it with "
					+ "ALTER_REPLICATION_SLOT <slot> (FAILOVER true) on a replication connection");
		}
	}

	boolean temporary() {
		return this.slotLifecycle == SlotLifecycle.TEMPORARY;
	}

	/**
	 * Whether the decoder is pgoutput, whose payloads the assembler decodes itself on its
	 * fast path.
	 */
	boolean pgoutput() {
		return this.decoder instanceof PgOutputLogicalDecoder;
	}

	/** Whether a subscription takes schema changes, which only then are tracked. */
	boolean wantsSchemaChanges() {
		return this.ddlEvents || this.subscriptions.stream().anyMatch((s) -> s.schemaHandler() != null);
	}

	/**
	 * Returns this configuration with another checkpoint store (the configured one
	 * wrapped), checked again like the rest.
	 */
	ConsumerConfig withCheckpointStore(CheckpointStore store) {
		return new ConsumerConfig(this.slotName, this.slotLifecycle, this.publicationName, this.publicationMode,
				this.tables, this.filters, this.binary, this.decoder, this.retryPolicy, this.reconnectPolicy,
				this.statusInterval, this.connectTimeout, this.maxTransactionChanges, this.maxUnacknowledged,
				this.readAheadEvents, this.readAheadBytes, this.stopTimeout, this.listener, this.valueDecoders,
				this.subscriptions, this.streams, this.admin, store, this.checkpointBatch, this.checkpointBatchDelay,
				this.streaming, this.walSafety, this.snapshot, this.backfill, this.unacknowledgedWarning, this.masks,
				this.ddlEvents);
	}

	boolean wantsMessages() {
		return this.subscriptions.stream().anyMatch((s) -> s.kind() == Recipient.Kind.MESSAGE);
	}

	private static void positive(@Nullable Duration duration, String name) {
		require(duration != null && !duration.isNegative() && !duration.isZero(), name + " (positive)");
	}

	private static void require(boolean valid, String setting) {
		if (!valid) {
			throw new ReplicationConsumerException("Invalid consumer configuration: " + setting);
		}
	}

}
