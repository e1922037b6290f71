package io.postlog.spring.boot.autoconfigure;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.RetryPolicy;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.stream.ReplicationConnectionFactory;

import org.springframework.context.ApplicationEventPublisher;

/**
 * Sets up the slot and publication on the application's {@link DataSource} and configures
 * the consumer from {@link PostlogProperties}. The replication connection is always a
 * fresh one per (re)connect, never from the pool.
 */
final class PostlogConsumerSetup implements PostlogListenerRegistry.ConsumerSetup {

	private final PostlogProperties properties;

	private final DataSource dataSource;

	private final ReplicationConnectionFactory connectionFactory;

	private final SlotPreparation preparation;

	PostlogConsumerSetup(PostlogProperties properties, DataSource dataSource,
			ReplicationConnectionFactory connectionFactory, ApplicationEventPublisher publisher) {
		this.properties = properties;
		this.dataSource = dataSource;
		this.connectionFactory = connectionFactory;
		this.preparation = new SlotPreparation(properties, dataSource, publisher);
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
		tables = this.preparation.prepare(tables);
		PostlogProperties.Retry retry = this.properties.getRetry();
		// The consumer's start() checks wal_level and creates the slot and publication on
		// the calling thread, so a set-up fault fails the application's start-up.
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
			.maxTransactionChanges(this.properties.getMaxTransactionChanges());
		return streaming(builder);
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
