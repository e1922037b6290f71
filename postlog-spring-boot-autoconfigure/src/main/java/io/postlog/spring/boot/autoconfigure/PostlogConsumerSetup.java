package io.postlog.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.RetryPolicy;
import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.stream.ReplicationConnectionFactory;
import org.jspecify.annotations.Nullable;

/**
 * Configures the consumer from {@link PostlogProperties}: the consumer's own set-up then
 * runs the start-up checks, acts on a lost slot ({@code postlog.slot.on-lost}), creates
 * the slot with failover ({@code postlog.slot.failover}) and, with heartbeats on, reports
 * them to the {@link HeartbeatTracker} (publishing the heartbeat table before PostgreSQL
 * 14), on the application's {@link DataSource}. The replication connection is always a
 * fresh one per (re)connect, never from the pool.
 */
final class PostlogConsumerSetup implements PostlogListenerRegistry.ConsumerSetup {

	private final PostlogProperties properties;

	private final DataSource dataSource;

	private final ReplicationConnectionFactory connectionFactory;

	private final @Nullable HeartbeatTracker heartbeats;

	PostlogConsumerSetup(PostlogProperties properties, DataSource dataSource,
			ReplicationConnectionFactory connectionFactory, @Nullable HeartbeatTracker heartbeats) {
		this.properties = properties;
		this.dataSource = dataSource;
		this.connectionFactory = connectionFactory;
		this.heartbeats = heartbeats;
	}

	@Override
	public ReplicationConsumer.Builder prepare(List<TableId> listenerTables) {
		List<TableId> tables = publishedTables(listenerTables);
		// Checked here so that a bad name fails start-up with InvalidIdentifierException,
		// before any SQL.
		PgIdentifiers.requireSlotName(this.properties.getSlot().getName());
		PgIdentifiers.requireName("publication", this.properties.getPublication().getName());
		for (TableId table : tables) {
			PgIdentifiers.requireName("schema", table.schema());
			PgIdentifiers.requireName("table", table.name());
		}
		PostlogProperties.Retry retry = this.properties.getRetry();
		// The consumer's start() runs the start-up checks and creates the slot and
		// publication on the calling thread, so a set-up fault fails the application's
		// start-up.
		ReplicationConsumer.Builder builder = ReplicationConsumer.builder()
			.connectionFactory(this.connectionFactory)
			.adminDataSource(this.dataSource)
			.slotName(this.properties.getSlot().getName())
			.slotLifecycle(this.properties.getSlot().getLifecycle())
			.publicationName(this.properties.getPublication().getName())
			.publicationMode(this.properties.getPublication().getMode())
			.tables(tables)
			.binary(this.properties.isBinary())
			.retryPolicy(new RetryPolicy(retry.getInitialInterval(), retry.getMultiplier(), retry.getMaxInterval(),
					retry.getMaxAttempts()))
			.statusInterval(this.properties.getStatusInterval())
			.connectTimeout(this.properties.getConnectTimeout())
			.maxUnacknowledged(this.properties.getDelivery().getMaxUnacknowledged())
			.readAhead(1024, this.properties.getDelivery().getReadAhead().toBytes())
			.maxTransactionChanges(this.properties.getMaxTransactionChanges())
			.failover(this.properties.getSlot().isFailover())
			.lostSlotAction(this.properties.getSlot().getOnLost());
		if (this.heartbeats != null) {
			builder.heartbeatMonitor(this.heartbeats)
				.heartbeatTable(TableId.parse(this.properties.getHeartbeat().getTable()));
		}
		return builder;
	}

	private List<TableId> publishedTables(List<TableId> listenerTables) {
		if (this.properties.getTables().isEmpty()) {
			return listenerTables;
		}
		List<TableId> tables = new ArrayList<>();
		for (String table : this.properties.getTables()) {
			tables.add(TableId.parse(table));
		}
		return tables;
	}

}
