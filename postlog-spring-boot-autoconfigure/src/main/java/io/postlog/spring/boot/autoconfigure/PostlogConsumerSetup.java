package io.postlog.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
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

	private final @Nullable PostlogSlotMonitor sharedMonitor;

	PostlogConsumerSetup(PostlogProperties properties, DataSource dataSource,
			ReplicationConnectionFactory connectionFactory, SnapshotConnections snapshotConnections,
			@Nullable HeartbeatTracker heartbeats, ObjectProvider<PlatformTransactionManager> transactionManagers) {
		this(properties, dataSource, connectionFactory, snapshotConnections, heartbeats, transactionManagers, null,
				null);
	}

	/**
	 * Creates the set-up.
	 * @param poller takes the groups' readings, or {@code null} to read on the caller's
	 * thread
	 * @param sharedMonitor the application's monitor (the endpoint's and the relay's),
	 * which the group of the same slot and publication uses too, so that one slot has one
	 * reading, marked out of date when the group sets the slot up; or {@code null}
	 */
	PostlogConsumerSetup(PostlogProperties properties, DataSource dataSource,
			ReplicationConnectionFactory connectionFactory, SnapshotConnections snapshotConnections,
			@Nullable HeartbeatTracker heartbeats, ObjectProvider<PlatformTransactionManager> transactionManagers,
			@Nullable PostlogServerPoller poller, @Nullable PostlogSlotMonitor sharedMonitor) {
		this.poller = poller;
		this.sharedMonitor = sharedMonitor;
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
		// The consumer's start() runs the start-up checks and creates the slot and
		// publication on the calling thread, so a set-up fault fails the application's
		// start-up.
		ReplicationConsumer.Builder builder = PostlogConsumerMapping
			.map(this.properties, group, ReplicationConsumer.builder())
			.connectionFactory(this.connectionFactory)
			.adminDataSource(this.dataSource)
			.tables(tables)
			.decoder(decoder);
		if (this.heartbeats != null) {
			// The default group tracks the heartbeats; every group keeps them from its
			// listeners.
			builder.heartbeatTable(TableId.parse(this.properties.getHeartbeat().getTable()));
			if (PostlogConsumerGroup.DEFAULT.equals(group)) {
				builder.heartbeatMonitor(this.heartbeats);
			}
		}
		checkpoint(builder, this.properties.getCheckpoint(), slotName);
		if (PostlogConsumerMapping.backfills(this.properties)
				|| PostlogConsumerMapping.initialSnapshot(this.properties)) {
			builder.snapshotConnections(this.snapshotConnections);
		}
		return new PostlogListenerRegistry.GroupPlan(builder, monitor(slotName, publicationName),
				this.properties.getPublication().getMode(), tables, this.dataSource, decoder,
				PostlogConsumerMapping.masks(this.properties));
	}

	private PostlogSlotMonitor monitor(String slotName, String publicationName) {
		PostlogSlotMonitor shared = this.sharedMonitor;
		if (shared != null && shared.slotName().equals(slotName) && shared.publicationName().equals(publicationName)) {
			return shared;
		}
		return new PostlogSlotMonitor(this.dataSource, slotName, publicationName, this.poller);
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
		PostlogWal2jsonProperties wal2json = this.properties.getWal2json();
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
	private void checkpoint(ReplicationConsumer.Builder builder, PostlogCheckpointProperties checkpoint,
			String slotName) {
		if (checkpoint.getStore() != PostlogProperties.CheckpointStore.JDBC) {
			return;
		}
		TransactionManagerCheckpointStore store = new TransactionManagerCheckpointStore(transactionManager(),
				this.dataSource, CheckpointTable.of(checkpoint.getTable(), slotName), checkpoint.isCreateTable());
		store.initialize();
		builder.checkpointStore(store);
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
