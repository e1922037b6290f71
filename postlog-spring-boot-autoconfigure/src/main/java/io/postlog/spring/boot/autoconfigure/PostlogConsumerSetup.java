package io.postlog.spring.boot.autoconfigure;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.consumer.ReconnectPolicy;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.RetryPolicy;
import io.postlog.consumer.checkpoint.CheckpointStoreException;
import io.postlog.consumer.checkpoint.CheckpointTable;
import io.postlog.decoder.LogicalDecoder;
import io.postlog.decoder.PgLogicalDecoder;
import io.postlog.decoder.PgOutputLogicalDecoder;
import io.postlog.decoder.Wal2JsonDecoder;
import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.snapshot.SnapshotConnections;
import io.postlog.spring.PostlogConsumerGroup;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogServerPoller;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.stream.ReplicationConnectionFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Plans each consumer group from {@link PostlogProperties}: its slot and publication
 * ({@code postlog.slot.name} for the default group, {@code postlog.groups.<name>.*} or
 * {@code postlog_<name>} for the others), its tables ({@code postlog.tables} for the
 * default group, else the listeners' tables), and a consumer builder that sets them up on
 * the application's {@link DataSource}. The consumer's own set-up runs the start-up
 * checks, acts on a lost slot ({@code postlog.slot.on-lost}) and creates the slot with
 * failover ({@code postlog.slot.failover}); with heartbeats on, the default group's
 * consumer reports them to the {@link HeartbeatTracker} (and publishes the heartbeat
 * table before PostgreSQL 14). The replication connection is always a fresh one per
 * (re)connect, never from the pool.
 */
final class PostlogConsumerSetup implements PostlogListenerRegistry.ConsumerSetup {

	private final PostlogProperties properties;

	private final DataSource dataSource;

	private final ReplicationConnectionFactory connectionFactory;

	private final SnapshotConnections snapshotConnections;

	private final @Nullable HeartbeatTracker heartbeats;

	private final ObjectProvider<PlatformTransactionManager> transactionManagers;

	private final @Nullable PostlogServerPoller poller;

	PostlogConsumerSetup(PostlogProperties properties, DataSource dataSource,
			ReplicationConnectionFactory connectionFactory, SnapshotConnections snapshotConnections,
			@Nullable HeartbeatTracker heartbeats, ObjectProvider<PlatformTransactionManager> transactionManagers) {
		this(properties, dataSource, connectionFactory, snapshotConnections, heartbeats, transactionManagers, null);
	}

	PostlogConsumerSetup(PostlogProperties properties, DataSource dataSource,
			ReplicationConnectionFactory connectionFactory, SnapshotConnections snapshotConnections,
			@Nullable HeartbeatTracker heartbeats, ObjectProvider<PlatformTransactionManager> transactionManagers,
			@Nullable PostlogServerPoller poller) {
		this.poller = poller;
		this.properties = properties;
		this.dataSource = dataSource;
		this.connectionFactory = connectionFactory;
		this.snapshotConnections = snapshotConnections;
		this.heartbeats = heartbeats;
		this.transactionManagers = transactionManagers;
	}

	@Override
	public PostlogListenerRegistry.GroupPlan prepare(String group, List<TableId> listenerTables) {
		List<TableId> tables = publishedTables(group, listenerTables);
		String slotName = this.properties.slotName(group);
		String publicationName = this.properties.publicationName(group);
		// Checked here so that a bad name fails start-up, naming its property, before any
		// SQL.
		PostlogNames.requireSlotName(this.properties, group);
		PostlogNames.requirePublicationName(this.properties, group);
		for (TableId table : tables) {
			PgIdentifiers.requireName("schema", table.schema());
			PgIdentifiers.requireName("table", table.name());
		}
		LogicalDecoder decoder = decoder(publicationName, tables);
		PostlogProperties.Retry retry = this.properties.getRetry();
		// The consumer's start() runs the start-up checks and creates the slot and
		// publication on the calling thread, so a set-up fault fails the application's
		// start-up.
		ReplicationConsumer.Builder builder = ReplicationConsumer.builder()
			.connectionFactory(this.connectionFactory)
			.adminDataSource(this.dataSource)
			.slotName(slotName)
			.slotLifecycle(this.properties.getSlot().getLifecycle())
			.publicationName(publicationName)
			.publicationMode(this.properties.getPublication().getMode())
			.tables(tables)
			.decoder(decoder)
			.retryPolicy(new RetryPolicy(retry.getInitialInterval(), retry.getMultiplier(), retry.getMaxInterval(),
					retry.getMaxAttempts()))
			.reconnectPolicy(reconnectPolicy(this.properties.getReconnect()))
			.statusInterval(this.properties.getStatusInterval())
			.connectTimeout(this.properties.getConnectTimeout())
			.maxUnacknowledged(this.properties.getDelivery().getMaxUnacknowledged())
			.unacknowledgedWarning(this.properties.getDelivery().getUnacknowledgedWarning())
			.readAhead(1024, this.properties.getDelivery().getReadAhead().toBytes())
			.maxTransactionChanges(this.properties.getMaxTransactionChanges())
			.failover(this.properties.getSlot().isFailover())
			.lostSlotAction(this.properties.getSlot().getOnLost());
		if (this.properties.getBinary() != null) {
			builder.binary(this.properties.getBinary());
		}
		if (this.heartbeats != null) {
			// The default group tracks the heartbeats; every group keeps them from its
			// listeners.
			builder.heartbeatTable(TableId.parse(this.properties.getHeartbeat().getTable()));
			if (PostlogConsumerGroup.DEFAULT.equals(group)) {
				builder.heartbeatMonitor(this.heartbeats);
			}
		}
		checkpoint(builder, this.properties.getCheckpoint(), slotName);
		snapshot(builder);
		return new PostlogListenerRegistry.GroupPlan(streaming(builder),
				new PostlogSlotMonitor(this.dataSource, slotName, publicationName, this.poller),
				this.properties.getPublication().getMode(), tables, this.dataSource, decoder);
	}

	/**
	 * The back-off between reconnects, from {@code postlog.reconnect.*}.
	 */
	static ReconnectPolicy reconnectPolicy(PostlogProperties.Reconnect reconnect) {
		return new ReconnectPolicy(reconnect.getInitialInterval(), reconnect.getMultiplier(),
				reconnect.getMaxInterval());
	}

	/**
	 * The group's decoder ({@code postlog.decoder}): pgoutput on its publication,
	 * wal2json on its tables, pglogical on {@code postlog.pglogical.replication-sets}.
	 */
	private LogicalDecoder decoder(String publicationName, List<TableId> tables) {
		return switch (this.properties.getDecoder()) {
			case PGOUTPUT -> PgOutputLogicalDecoder.forPublications(List.of(publicationName));
			case WAL2JSON -> wal2json(tables);
			case PGLOGICAL -> pglogical();
		};
	}

	private LogicalDecoder wal2json(List<TableId> tables) {
		if (tables.isEmpty()) {
			throw new InvalidConfigurationPropertyValueException("postlog.tables", "",
					"wal2json streams the tables it is given: set postlog.tables, or name tables on every "
							+ "@PgChangeListener of the group");
		}
		PostlogProperties.Wal2json wal2json = this.properties.getWal2json();
		return Wal2JsonDecoder.forTables(tables)
			.allowingInsertOnlyTables(wal2json.isAllowInsertOnlyTables())
			.withNumericsAsStrings(wal2json.isNumbersAsStrings())
			.allowingNonFiniteNumbersAsNull(wal2json.isAllowNonFiniteAsNull());
	}

	private LogicalDecoder pglogical() {
		List<String> sets = this.properties.getPglogical().getReplicationSets();
		if (sets.isEmpty()) {
			throw new InvalidConfigurationPropertyValueException("postlog.pglogical.replication-sets", "",
					"pglogical streams the tables of replication sets: name at least one");
		}
		return PgLogicalDecoder.forReplicationSets(sets);
	}

	/**
	 * Configures the checkpoint store of one consumer (one slot): with {@code jdbc}, a
	 * store over the application's transaction manager whose table is checked (and
	 * created if allowed) now, so that a missing table or privilege fails start-up. Each
	 * group keeps its own row, keyed by its slot.
	 */
	private void checkpoint(ReplicationConsumer.Builder builder, PostlogProperties.Checkpoint checkpoint,
			String slotName) {
		if (checkpoint.getStore() != PostlogProperties.CheckpointStore.JDBC) {
			return;
		}
		TransactionManagerCheckpointStore store = new TransactionManagerCheckpointStore(transactionManager(),
				this.dataSource, CheckpointTable.of(checkpoint.getTable(), slotName), checkpoint.isCreateTable());
		store.initialize();
		builder.checkpointStore(store)
			.checkpointBatch(checkpoint.getBatchTransactions(), checkpoint.getBatchMaxDelay());
	}

	/**
	 * Configures the initial snapshot of one consumer (each group snapshots its own
	 * publication's tables when its slot is created) and its backfills.
	 */
	private void snapshot(ReplicationConsumer.Builder builder) {
		PostlogProperties.Snapshot snapshot = this.properties.getSnapshot();
		if (this.properties.getCheckpoint().getStore() != PostlogProperties.CheckpointStore.JDBC
				&& this.properties.getDecoder() == PostlogProperties.Decoder.PGOUTPUT) {
			// Backfills are delivered outside sink transactions, which a jdbc store
			// refuses; their watermarks and chunks are built for pgoutput's stream.
			builder.backfills(snapshot.getChunkSize())
				.watermarkTable(TableId.parse(snapshot.getWatermarkTable()))
				.backfillNewTables(snapshot.backfillsNewTables())
				.maxQueuedBackfills(snapshot.getMaxQueuedBackfills())
				.snapshotConnections(this.snapshotConnections);
		}
		if (snapshot.getMode() != PostlogProperties.SnapshotMode.INITIAL) {
			return;
		}
		builder.initialSnapshot(snapshot.getParallelism(), snapshot.getChunkSize())
			.snapshotMarkerTable(TableId.parse(snapshot.getMarkerTable()))
			.snapshotConnections(this.snapshotConnections);
	}

	private PlatformTransactionManager transactionManager() {
		if (this.transactionManagers.stream().findAny().isEmpty()) {
			// No transaction manager at all (transactions not auto-configured): one over
			// the application's DataSource, which JdbcTemplate and JdbcClient join.
			return new DataSourceTransactionManager(this.dataSource);
		}
		PlatformTransactionManager unique = this.transactionManagers.getIfUnique();
		if (unique == null) {
			throw new CheckpointStoreException(
					"postlog.checkpoint.store=jdbc runs each sink transaction through the "
							+ "application's PlatformTransactionManager, but there are several and none is primary",
					null);
		}
		return unique;
	}

	private ReplicationConsumer.Builder streaming(ReplicationConsumer.Builder builder) {
		PostlogProperties.Streaming streaming = this.properties.getStreaming();
		if (!streaming.isEnabled()) {
			return builder;
		}
		Path spillDirectory = (streaming.getSpillDirectory() != null) ? streaming.getSpillDirectory()
				: Path.of(System.getProperty("java.io.tmpdir"));
		return builder.streaming(streaming.getMemory().toBytes(), spillDirectory, streaming.getMaxSpill().toBytes());
	}

	private List<TableId> publishedTables(String group, List<TableId> listenerTables) {
		if (!PostlogConsumerGroup.DEFAULT.equals(group) || this.properties.getTables().isEmpty()) {
			return listenerTables;
		}
		List<TableId> tables = new ArrayList<>();
		for (String table : this.properties.getTables()) {
			tables.add(TableId.parse(table));
		}
		return tables;
	}

}
