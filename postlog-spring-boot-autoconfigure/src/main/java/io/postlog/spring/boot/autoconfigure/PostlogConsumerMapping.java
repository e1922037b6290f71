package io.postlog.spring.boot.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import io.postlog.TableId;
import io.postlog.admin.TableFilter;
import io.postlog.consumer.ColumnMasks;
import io.postlog.consumer.ReconnectPolicy;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.RetryPolicy;

import org.springframework.boot.context.properties.PropertyMapper;

/**
 * The one mapping from {@link PostlogProperties} to a
 * {@link ReplicationConsumer.Builder}: every setting a property decides is set here, and
 * nowhere else, so that the consumers of the listener registry and of the Kafka relay
 * read a property alike. What a property does not decide (connections, the decoder,
 * tables, stores, monitors) the caller sets. The properties' defaults equal the builder's
 * (a test compares them). Stateless.
 * <p>
 * Public for postlog's Kafka module; not an API of its own.
 */
public final class PostlogConsumerMapping {

	private PostlogConsumerMapping() {
	}

	/**
	 * Maps what every consumer of the application shares: retries and reconnects
	 * ({@code postlog.retry.*}, {@code postlog.reconnect.*}), the status interval, the
	 * connect timeout, the read-ahead bound, the value format ({@code postlog.binary})
	 * and the column masks ({@code postlog.mask.*}).
	 * @param properties the properties
	 * @param builder the builder to set
	 * @return the builder
	 */
	public static ReplicationConsumer.Builder mapConnection(PostlogProperties properties,
			ReplicationConsumer.Builder builder) {
		PropertyMapper map = PropertyMapper.get();
		builder.retryPolicy(retryPolicy(properties.getRetry()));
		builder.reconnectPolicy(reconnectPolicy(properties.getReconnect()));
		map.from(properties::getStatusInterval).to(builder::statusInterval);
		map.from(properties::getConnectTimeout).to(builder::connectTimeout);
		map.from(properties.getDelivery().getReadAhead())
			.to((readAhead) -> builder.readAhead(1024, readAhead.toBytes()));
		map.from(properties::getBinary).to(builder::binary);
		ColumnMasks masks = masks(properties);
		if (!masks.isEmpty()) {
			builder.masks(masks);
		}
		return builder;
	}

	/**
	 * The column masks of {@code postlog.mask.*}, keyed by {@code postlog.mask-key}.
	 * @param properties the properties
	 * @return the masks, empty when none is set
	 * @throws io.postlog.ReplicationConsumerException if a column is hashed without a key
	 * long enough
	 */
	static ColumnMasks masks(PostlogProperties properties) {
		Map<TableId, Map<String, ColumnMasks.Mask>> masks = new LinkedHashMap<>();
		properties.getMask().forEach((table, columns) -> masks.put(TableId.parse(table), columns));
		String key = properties.getMaskKey();
		return ColumnMasks.of(masks, (key != null) ? key.getBytes(StandardCharsets.UTF_8) : null);
	}

	/**
	 * Maps every property-decided setting of one consumer group's consumer: its slot and
	 * publication (with the row filters and column lists of its tables),
	 * {@link #mapConnection what all consumers share}, delivery bounds, the checkpoint
	 * batch (with the {@code jdbc} store), streaming of large transactions, the initial
	 * snapshot and backfills. The caller adds the snapshot connections when a snapshot or
	 * backfills are on.
	 * @param properties the properties
	 * @param group the consumer group, empty for the default group
	 * @param builder the builder to set
	 * @return the builder
	 */
	static ReplicationConsumer.Builder map(PostlogProperties properties, String group,
			ReplicationConsumer.Builder builder) {
		PropertyMapper map = PropertyMapper.get();
		builder.slotName(properties.slotName(group)).publicationName(properties.publicationName(group));
		map.from(properties.getSlot()::getLifecycle).to(builder::slotLifecycle);
		map.from(properties.getPublication()::getMode).to(builder::publicationMode);
		builder.filters(filters(properties, group));
		mapConnection(properties, builder);
		PostlogDeliveryProperties delivery = properties.getDelivery();
		map.from(delivery::getMaxUnacknowledged).to(builder::maxUnacknowledged);
		map.from(delivery::getUnacknowledgedWarning).to(builder::unacknowledgedWarning);
		map.from(properties::getMaxTransactionChanges).to(builder::maxTransactionChanges);
		map.from(properties.getSlot()::isFailover).to(builder::failover);
		map.from(properties.getSlot()::getOnLost).to(builder::lostSlotAction);
		builder.schemaDdlEvents(properties.getSchema().isDdlEvents());
		PostlogCheckpointProperties checkpoint = properties.getCheckpoint();
		if (checkpoint.getStore() == PostlogProperties.CheckpointStore.JDBC) {
			builder.checkpointBatch(checkpoint.getBatchTransactions(), checkpoint.getBatchMaxDelay());
		}
		streaming(properties.getStreaming(), builder);
		snapshot(properties, builder);
		return builder;
	}

	/**
	 * The row filters and column lists of a group's tables, by table; a filter with
	 * neither is left out.
	 * @param properties the properties
	 * @param group the consumer group, empty for the default group
	 * @return the filters
	 */
	static Map<TableId, TableFilter> filters(PostlogProperties properties, String group) {
		return filters(properties.filters(group));
	}

	/**
	 * The row filters and column lists of bound filter properties, by table; a filter
	 * with neither is left out. The Kafka relay maps {@code postlog.kafka.filters} with
	 * it.
	 * @param properties the filter properties by table (table or schema.table)
	 * @return the filters
	 */
	public static Map<TableId, TableFilter> filters(Map<String, PostlogFilterProperties> properties) {
		Map<TableId, TableFilter> filters = new LinkedHashMap<>();
		properties.forEach((table, filter) -> {
			TableFilter mapped = new TableFilter(filter.getWhere(), filter.getColumns());
			if (!mapped.isEmpty()) {
				filters.put(TableId.parse(table), mapped);
			}
		});
		return filters;
	}

	/**
	 * Whether the group's consumer reads backfills: their watermarks and chunks are built
	 * for pgoutput's stream.
	 */
	static boolean backfills(PostlogProperties properties) {
		return properties.getDecoder() == PostlogProperties.Decoder.PGOUTPUT;
	}

	/**
	 * Whether the group's consumer takes an initial snapshot when it creates its slot.
	 */
	static boolean initialSnapshot(PostlogProperties properties) {
		return properties.getSnapshot().getMode() == PostlogProperties.SnapshotMode.INITIAL;
	}

	/**
	 * The back-off between retries, from {@code postlog.retry.*}.
	 */
	static RetryPolicy retryPolicy(PostlogRetryProperties retry) {
		return new RetryPolicy(retry.getInitialInterval(), retry.getMultiplier(), retry.getMaxInterval(),
				retry.getMaxAttempts());
	}

	/**
	 * The back-off between reconnects, from {@code postlog.reconnect.*}.
	 */
	static ReconnectPolicy reconnectPolicy(PostlogReconnectProperties reconnect) {
		return new ReconnectPolicy(reconnect.getInitialInterval(), reconnect.getMultiplier(),
				reconnect.getMaxInterval());
	}

	private static void streaming(PostlogStreamingProperties streaming, ReplicationConsumer.Builder builder) {
		if (!streaming.isEnabled()) {
			return;
		}
		Path spillDirectory = (streaming.getSpillDirectory() != null) ? streaming.getSpillDirectory()
				: Path.of(System.getProperty("java.io.tmpdir"));
		builder.streaming(streaming.getMemory().toBytes(), spillDirectory, streaming.getMaxSpill().toBytes());
	}

	private static void snapshot(PostlogProperties properties, ReplicationConsumer.Builder builder) {
		PostlogSnapshotProperties snapshot = properties.getSnapshot();
		if (backfills(properties)) {
			builder.backfills(snapshot.getChunkSize())
				.watermarkTable(TableId.parse(snapshot.getWatermarkTable()))
				.backfillNewTables(snapshot.backfillsNewTables())
				.maxQueuedBackfills(snapshot.getMaxQueuedBackfills());
		}
		if (initialSnapshot(properties)) {
			builder.initialSnapshot(snapshot.getParallelism(), snapshot.getChunkSize())
				.snapshotMarkerTable(TableId.parse(snapshot.getMarkerTable()));
		}
	}

}
