package io.postlog.consumer;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import javax.sql.DataSource;

import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.admin.TableFilter;
import io.postlog.decoder.LogicalDecoder;
import io.postlog.decoder.PgOutputLogicalDecoder;
import io.postlog.heartbeat.HeartbeatMonitor;
import io.postlog.snapshot.SnapshotConnections;
import io.postlog.snapshot.SnapshotOptions;
import io.postlog.stream.LogicalStreamFactory;
import io.postlog.stream.ReplicationConnectionFactory;
import org.jspecify.annotations.Nullable;

/**
 * The first part of {@link ReplicationConsumer.Builder}: where the consumer streams from.
 * Connections, slot and publication, decoding, WAL safety and the initial snapshot; every
 * setter returns the builder. Not thread-safe. Package-private: its public setters are
 * the builder's, documented there.
 *
 * @param <B> the builder type the setters return
 */
abstract class ConsumerSourceBuilder<B extends ConsumerSourceBuilder<B>> {

	@Nullable LogicalStreamFactory streamFactory;

	@Nullable ReplicationConnectionFactory connectionFactory;

	@Nullable String jdbcUrl;

	@Nullable String user;

	@Nullable String password;

	@Nullable Connection adminConnection;

	@Nullable DataSource adminDataSource;

	String slotName = "postlog";

	SlotLifecycle slotLifecycle = SlotLifecycle.CREATE_IF_MISSING;

	String publicationName = "postlog";

	PublicationMode publicationMode = PublicationMode.CREATE_IF_MISSING;

	List<TableId> tables = List.of();

	Map<TableId, TableFilter> filters = Map.of();

	@Nullable Boolean binary;

	@Nullable LogicalDecoder decoder;

	Duration statusInterval = Duration.ofSeconds(10);

	Duration connectTimeout = Duration.ofSeconds(10);

	boolean initialSnapshot;

	int snapshotParallelism = SnapshotOptions.DEFAULT_PARALLELISM;

	int snapshotChunkSize = SnapshotOptions.DEFAULT_CHUNK_SIZE;

	TableId snapshotMarkerTable = TableId.parse("postlog_snapshot");

	boolean ddlEvents;

	@Nullable SnapshotConnections snapshotConnections;

	boolean failover;

	LostSlotAction lostSlotAction = LostSlotAction.FAIL;

	@Nullable HeartbeatMonitor heartbeatMonitor;

	@Nullable TableId heartbeatTable;

	/**
	 * Sets where fresh replication connections come from, one per (re)connect.
	 * @param factory the factory
	 * @return this builder
	 */
	public B connectionFactory(ReplicationConnectionFactory factory) {
		this.connectionFactory = factory;
		return self();
	}

	/**
	 * Connects to a database by URL, for replication and, unless another admin connection
	 * is set, for admin work on connections the consumer opens and closes.
	 * @param url the JDBC URL ({@code jdbc:postgresql://...})
	 * @param user the user, or {@code null}
	 * @param password the password, or {@code null}
	 * @return this builder
	 */
	public B jdbcUrl(String url, @Nullable String user, @Nullable String password) {
		this.jdbcUrl = url;
		this.user = user;
		this.password = password;
		return self();
	}

	/**
	 * Sets a connection for admin work, shared under a lock and never closed by the
	 * consumer.
	 * @param connection the connection, owned by the caller
	 * @return this builder
	 */
	public B adminConnection(Connection connection) {
		this.adminConnection = connection;
		return self();
	}

	/**
	 * Sets a data source for admin work; each connection is closed after one use.
	 * @param dataSource the data source
	 * @return this builder
	 */
	public B adminDataSource(DataSource dataSource) {
		this.adminDataSource = dataSource;
		return self();
	}

	/**
	 * Sets the slot name ({@code postlog} by default).
	 * @param slotName lower-case letters, digits and underscores, at most 63
	 * @return this builder
	 */
	public B slotName(String slotName) {
		this.slotName = slotName;
		return self();
	}

	/**
	 * Sets how the slot is managed ({@code CREATE_IF_MISSING} by default).
	 * @param lifecycle the lifecycle
	 * @return this builder
	 */
	public B slotLifecycle(SlotLifecycle lifecycle) {
		this.slotLifecycle = lifecycle;
		return self();
	}

	/**
	 * Sets the publication name ({@code postlog} by default).
	 * @param publicationName the name
	 * @return this builder
	 */
	public B publicationName(String publicationName) {
		this.publicationName = publicationName;
		return self();
	}

	/**
	 * Sets how the publication is managed ({@code CREATE_IF_MISSING} by default).
	 * @param mode the mode
	 * @return this builder
	 */
	public B publicationMode(PublicationMode mode) {
		this.publicationMode = mode;
		return self();
	}

	/**
	 * Sets the publication's tables.
	 * @param tables the tables
	 * @return this builder
	 */
	public B tables(List<TableId> tables) {
		this.tables = List.copyOf(tables);
		return self();
	}

	/**
	 * Sets row filters and column lists, pushed into the publication (PostgreSQL 15 and
	 * later; refused at start before, never applied on the client): the server sends only
	 * those rows and columns, and the initial snapshot and backfills read only them. Each
	 * filtered table must be among {@link #tables(List) the tables}; the filters are
	 * checked on the server at start, and a table the publication already publishes with
	 * another filter is refused. pgoutput only.
	 * @param filters the filters by table
	 * @return this builder
	 */
	public B filters(Map<TableId, TableFilter> filters) {
		this.filters = Map.copyOf(filters);
		return self();
	}

	/**
	 * Sets whether to stream values in binary. By default values are binary where the
	 * decoder can carry them: pgoutput from PostgreSQL 14 on (older servers get text,
	 * said once at start); wal2json and pglogical send text, also said once. Asked for
	 * explicitly, binary values are refused at start by a decoder that cannot carry them.
	 * A table with a column the server cannot send in binary (such as {@code aclitem[]})
	 * makes the stream text, with one warning naming the columns.
	 * @param binary whether to ask for binary values
	 * @return this builder
	 */
	public B binary(boolean binary) {
		this.binary = binary;
		return self();
	}

	/**
	 * Sets the output plugin's decoder (by default pgoutput on the consumer's
	 * publication): {@link io.postlog.decoder.Wal2JsonDecoder} or
	 * {@link io.postlog.decoder.PgLogicalDecoder}, which choose their own tables and need
	 * an admin connection; the publication settings then do not apply. A
	 * {@link PgOutputLogicalDecoder} must name the consumer's publication. Listeners
	 * receive the same changes whatever the decoder; what a decoder cannot carry is
	 * refused at start, naming it.
	 * @param decoder the decoder
	 * @return this builder
	 */
	public B decoder(LogicalDecoder decoder) {
		this.decoder = decoder;
		return self();
	}

	/**
	 * Sets how often the server hears the acknowledged position at the latest (10 s by
	 * default); a moved position is sent within 200 ms anyway, and a status update that
	 * asks the server to answer goes out at least every 5 s (or a third of
	 * {@code wal_sender_timeout}) to tell a silent connection from a quiet one.
	 * @param statusInterval the interval
	 * @return this builder
	 */
	public B statusInterval(Duration statusInterval) {
		this.statusInterval = statusInterval;
		return self();
	}

	/**
	 * Sets the longest a connect, login or {@code START_REPLICATION} may take (10 s by
	 * default), so a server that accepts connections but does not answer cannot hang a
	 * reconnect.
	 * @param connectTimeout the timeout, at least one second is used
	 * @return this builder
	 */
	public B connectTimeout(Duration connectTimeout) {
		this.connectTimeout = connectTimeout;
		return self();
	}

	/**
	 * Sets whether a slot the consumer creates fails over to physical standbys
	 * ({@code false} by default): PostgreSQL 17+ then keeps a copy of it on standbys
	 * running with {@code sync_replication_slots = on}, so that it survives a promotion.
	 * Refused at start before PostgreSQL 17, naming the server version, and at build for
	 * a temporary slot. An existing slot is kept as it is, with a warning when it does
	 * not fail over.
	 * @param failover whether to create the slot with failover
	 * @return this builder
	 */
	public B failover(boolean failover) {
		this.failover = failover;
		return self();
	}

	/**
	 * Sets what to do when the slot is found lost, at start (invalidated by the server)
	 * or on a reconnect (invalidated, or missing although it existed):
	 * {@link LostSlotAction#FAIL} (the default) fails with a
	 * {@link io.postlog.admin.SlotLostException}; {@link LostSlotAction#RECREATE} drops
	 * the slot, creates a new one and streams from there, logging at ERROR that the
	 * changes in between were skipped. Either way {@link ConsumerListener#slotLost} hears
	 * of it first. A lost slot is never recreated silently; {@code RECREATE} is refused
	 * for an {@code EXISTING} slot. Needs an admin connection; temporary slots are never
	 * lost.
	 * @param action what to do
	 * @return this builder
	 */
	public B lostSlotAction(LostSlotAction action) {
		this.lostSlotAction = Objects.requireNonNull(action, "action");
		return self();
	}

	/**
	 * Sets the monitor told of every heartbeat that comes back through the stream (when
	 * delivery reaches it) and of every stream start, for example a
	 * {@link io.postlog.heartbeat.HeartbeatTracker}. The consumer writes no heartbeats
	 * itself ({@link io.postlog.heartbeat.HeartbeatWriter} does); it asks the server for
	 * logical messages on PostgreSQL 14+ even without a message subscription, and before
	 * 14 creates and publishes the heartbeat table. Whether or not a monitor is set,
	 * heartbeats (messages with the prefix
	 * {@value io.postlog.heartbeat.Heartbeat#PREFIX}, and before 14 the changes of the
	 * heartbeat table) reach no subscription.
	 * @param monitor the monitor
	 * @return this builder
	 */
	public B heartbeatMonitor(HeartbeatMonitor monitor) {
		this.heartbeatMonitor = Objects.requireNonNull(monitor, "monitor");
		return self();
	}

	/**
	 * Sets the heartbeat table, whose rows are the heartbeats before PostgreSQL 14
	 * ({@link io.postlog.heartbeat.HeartbeatWriter#DEFAULT_TABLE} by default). Its
	 * changes then reach no subscription, also without a monitor (for a consumer that
	 * shares a database with the one that tracks them); only with a monitor does the
	 * consumer create and publish it. Without an admin connection the consumer cannot
	 * read the server version: heartbeats are then this table's rows when it is set, else
	 * logical messages.
	 * @param table the table
	 * @return this builder
	 */
	public B heartbeatTable(TableId table) {
		this.heartbeatTable = Objects.requireNonNull(table, "table");
		return self();
	}

	/**
	 * Takes an initial snapshot when the consumer creates the slot: every row of the
	 * publication's tables, read under the snapshot the server exports with the slot, is
	 * delivered as an {@link io.postlog.Operation#SNAPSHOT} change before the stream
	 * starts at the slot's consistent point, so that nothing is missed or seen twice
	 * across the hand-off. The tables are read on {@code parallelism} ordinary
	 * connections in chunks of about {@code chunkSize} rows with {@code COPY}, binary
	 * unless {@link ReplicationConsumer.Builder#binary(boolean)} is off (on every server
	 * version), and decoded by the consumer's value decoders; rows reach the
	 * subscriptions on the delivery thread and their lanes as stream changes do, in
	 * bounded memory. State {@link ConsumerState#SNAPSHOT} while it runs.
	 * <p>
	 * Crash-safe: the slot streams only after a complete snapshot was delivered (every
	 * handler returned and acknowledged); a crash, a lost connection or a failure before
	 * that leads to a new snapshot, never to streaming after a partial one (see
	 * {@link io.postlog.snapshot.SnapshotHandOff}). A slot that exists is streamed
	 * without a snapshot. {@link ConsumerListener#snapshotStarted} tells when a snapshot
	 * begins, so that a read model can start over.
	 * <p>
	 * {@code Transaction} subscriptions receive the snapshot in batches of up to 256 rows
	 * (and at most {@code maxTransactionChanges}), each a {@code Transaction} with xid 0
	 * whose commit and end LSN are the consistent point; the batches count as
	 * transactions for {@link ReplicationConsumer.Builder#maxUnacknowledged(int)}.
	 * Refused at build with a temporary slot (use {@code OWNED}), a transactional
	 * checkpoint store, or without an admin connection; at start for a slot of lifecycle
	 * {@code EXISTING}, which already has a position.
	 * @param parallelism connections reading at once, 1 to 64
	 * ({@value SnapshotOptions#DEFAULT_PARALLELISM} by default)
	 * @param chunkSize about how many rows one chunk holds, at least 1
	 * ({@value SnapshotOptions#DEFAULT_CHUNK_SIZE} by default)
	 * @return this builder
	 */
	public B initialSnapshot(int parallelism, int chunkSize) {
		this.initialSnapshot = true;
		this.snapshotParallelism = parallelism;
		this.snapshotChunkSize = chunkSize;
		return self();
	}

	/**
	 * Installs postlog's event triggers ({@code ddl_command_end}, {@code sql_drop}) at
	 * start, so that every schema change is emitted with the DDL as a transactional
	 * logical message and classified exactly (PostgreSQL 14+; refused before, naming the
	 * version). Off by default: schema changes then come from the stream's Relation
	 * messages alone.
	 * @param ddlEvents whether to install and read them
	 * @return this builder
	 */
	public B schemaDdlEvents(boolean ddlEvents) {
		this.ddlEvents = ddlEvents;
		return self();
	}

	/**
	 * Sets the table in which an initial snapshot on PostgreSQL 10 and 11, which cannot
	 * copy slots, records whether it completed ({@code public.postlog_snapshot} by
	 * default; created when needed). Unused from PostgreSQL 12 on.
	 * @param table the table
	 * @return this builder
	 */
	public B snapshotMarkerTable(TableId table) {
		this.snapshotMarkerTable = Objects.requireNonNull(table, "table");
		return self();
	}

	/**
	 * Sets where the connections that read an initial snapshot come from: one per reader,
	 * closed after the read; they must reach the database the slot is in. By default they
	 * are opened from
	 * {@link ReplicationConsumer.Builder#jdbcUrl(String, String, String)}, else borrowed
	 * from {@link ReplicationConsumer.Builder#adminDataSource(DataSource)}.
	 * @param connections opens the reader connections
	 * @return this builder
	 */
	public B snapshotConnections(SnapshotConnections connections) {
		this.snapshotConnections = Objects.requireNonNull(connections, "connections");
		return self();
	}

	/**
	 * Opens streams with this factory instead of over pgjdbc; for tests.
	 * @param streamFactory the factory
	 * @return this builder
	 */
	public B streamFactory(LogicalStreamFactory streamFactory) {
		this.streamFactory = streamFactory;
		return self();
	}

	@Nullable SnapshotConnections readers() {
		if (this.snapshotConnections != null) {
			return this.snapshotConnections;
		}
		if (this.jdbcUrl != null) {
			return SnapshotConnections.of(this.jdbcUrl, this.user, this.password);
		}
		return (this.adminDataSource != null) ? SnapshotConnections.of(this.adminDataSource) : null;
	}

	@Nullable SnapshotSettings snapshotSettings(@Nullable ReplicationConnectionFactory replication) {
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

	@Nullable LogicalDecoder decoder() {
		if (this.decoder != null || this.publicationName == null) {
			return this.decoder;
		}
		return PgOutputLogicalDecoder.forPublications(List.of(this.publicationName));
	}

	@Nullable AdminConnections adminConnections() {
		if (this.adminConnection != null) {
			return AdminConnections.shared(this.adminConnection);
		}
		if (this.adminDataSource != null) {
			return AdminConnections.of(this.adminDataSource);
		}
		return (this.jdbcUrl != null && this.streamFactory == null)
				? AdminConnections.of(this.jdbcUrl, this.user, this.password) : null;
	}

	/**
	 * Returns this builder as its own type, for the setters to return.
	 * @return this builder
	 */
	@SuppressWarnings("unchecked")
	final B self() {
		return (B) this;
	}

}
