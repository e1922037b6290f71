package io.postlog.spring.boot.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.RetryPolicy;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.stream.ReplicationConnectionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets up the slot and publication on the application's {@link DataSource} and configures
 * the consumer from {@link PostlogProperties}. The replication connection is always a
 * fresh one per (re)connect, never from the pool.
 */
final class PostlogConsumerSetup implements PostlogListenerRegistry.ConsumerSetup {

	private static final Logger logger = LoggerFactory.getLogger(PostlogConsumerSetup.class);

	private final PostlogProperties properties;

	private final DataSource dataSource;

	private final ReplicationConnectionFactory connectionFactory;

	PostlogConsumerSetup(PostlogProperties properties, DataSource dataSource,
			ReplicationConnectionFactory connectionFactory) {
		this.properties = properties;
		this.dataSource = dataSource;
		this.connectionFactory = connectionFactory;
	}

	@Override
	public ReplicationConsumer.Builder prepare(List<TableId> listenerTables) {
		List<TableId> tables = publishedTables(listenerTables);
		String slot = this.properties.getSlot().getName();
		String publication = this.properties.getPublication().getName();
		try (Connection connection = this.dataSource.getConnection()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			if (this.properties.getSlot().getLifecycle() != SlotLifecycle.TEMPORARY) {
				admin.ensureSlot(slot, this.properties.getSlot().getLifecycle());
			}
			admin.ensurePublication(publication, this.properties.getPublication().getMode(), tables);
			warnAboutUnpublished(admin.publicationTables(publication), listenerTables, publication);
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not set up slot '" + slot + "' and publication '" + publication + "'",
					ex);
		}
		PostlogProperties.Retry retry = this.properties.getRetry();
		return ReplicationConsumer.builder()
			.connectionFactory(this.connectionFactory)
			.adminConnections(this.dataSource::getConnection)
			.slotName(slot)
			.slotLifecycle(this.properties.getSlot().getLifecycle())
			.publicationName(publication)
			.publicationMode(this.properties.getPublication().getMode())
			.tables(tables)
			.binary(this.properties.isBinary())
			.retryPolicy(new RetryPolicy(retry.getInitialInterval(), retry.getMultiplier(), retry.getMaxInterval(),
					retry.getMaxAttempts()))
			.statusInterval(this.properties.getStatusInterval())
			.maxTransactionChanges(this.properties.getMaxTransactionChanges());
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

	private static void warnAboutUnpublished(List<TableId> published, List<TableId> listenerTables,
			String publication) {
		List<TableId> missing = listenerTables.stream().filter((table) -> !published.contains(table)).toList();
		if (!missing.isEmpty() && !published.isEmpty()) {
			logger.warn("Listeners name tables that publication '{}' does not publish: {}", publication, missing);
		}
	}

}
