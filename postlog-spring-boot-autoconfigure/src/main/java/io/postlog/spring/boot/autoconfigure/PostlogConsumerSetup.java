package io.postlog.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.consumer.CheckpointStoreException;
import io.postlog.consumer.CheckpointTable;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.RetryPolicy;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.stream.ReplicationConnectionFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Sets up the slot and publication on the application's {@link DataSource} and configures
 * the consumer from {@link PostlogProperties}. The replication connection is always a
 * fresh one per (re)connect, never from the pool.
 */
final class PostlogConsumerSetup implements PostlogListenerRegistry.ConsumerSetup {

	private final PostlogProperties properties;

	private final DataSource dataSource;

	private final ReplicationConnectionFactory connectionFactory;

	private final ObjectProvider<PlatformTransactionManager> transactionManagers;

	PostlogConsumerSetup(PostlogProperties properties, DataSource dataSource,
			ReplicationConnectionFactory connectionFactory,
			ObjectProvider<PlatformTransactionManager> transactionManagers) {
		this.properties = properties;
		this.dataSource = dataSource;
		this.connectionFactory = connectionFactory;
		this.transactionManagers = transactionManagers;
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
		checkpoint(builder, this.properties.getCheckpoint(), this.properties.getSlot().getName());
		return builder;
	}

	/**
	 * Configures the checkpoint store of one consumer (one slot): with {@code jdbc}, a
	 * store over the application's transaction manager whose table is checked (and
	 * created if allowed) now, so that a missing table or privilege fails start-up.
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
