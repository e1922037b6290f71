package io.postlog.consumer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.consumer.backfill.BackfillSettings;
import io.postlog.consumer.spill.SpillLimitExceededException;
import io.postlog.consumer.spill.StreamingOptions;
import io.postlog.snapshot.SnapshotConnections;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;

/**
 * The second part of {@link ReplicationConsumer.Builder}: how the consumer delivers.
 * Retries and reconnects, read-ahead and acknowledgement bounds, the observer, value
 * decoding, checkpoints, streaming of large transactions and backfills. Not thread-safe.
 * Package-private: its public setters are the builder's, documented there.
 *
 * @param <B> the builder type the setters return
 */
abstract class ConsumerDeliveryBuilder<B extends ConsumerDeliveryBuilder<B>> extends ConsumerSourceBuilder<B> {

	RetryPolicy retryPolicy = RetryPolicy.DEFAULT;

	ReconnectPolicy reconnectPolicy = ReconnectPolicy.DEFAULT;

	int maxTransactionChanges = 100_000;

	int maxUnacknowledged = 1000;

	int readAheadEvents = 1024;

	long readAheadBytes = 32L * 1024 * 1024;

	ConsumerListener listener = new ConsumerListener() {
	};

	ValueDecoders valueDecoders = ValueDecoders.standard();

	Duration stopTimeout = Duration.ofSeconds(30);

	Duration unacknowledgedWarning = Duration.ofSeconds(60);

	@Nullable ColumnMasks masks;

	CheckpointStore checkpointStore = SlotOnlyCheckpointStore.INSTANCE;

	int checkpointBatch = 1;

	Duration checkpointBatchDelay = Duration.ofMillis(100);

	boolean streaming;

	long streamingMemory;

	@Nullable Path spillDirectory;

	long maxSpill;

	int backfillChunkSize;

	int maxQueuedBackfills = BackfillSettings.DEFAULT_MAX_QUEUED;

	TableId watermarkTable = BackfillSettings.DEFAULT_WATERMARK_TABLE;

	TableId backfillProgressTable = BackfillSettings.DEFAULT_PROGRESS_TABLE;

	boolean backfillNewTables;

	/**
	 * Sets the back-off and attempts for failed handlers ({@link RetryPolicy#DEFAULT} by
	 * default). Lost connections use the
	 * {@link ReplicationConsumer.Builder#reconnectPolicy reconnect policy}.
	 * @param retryPolicy the policy
	 * @return this builder
	 */
	public B retryPolicy(RetryPolicy retryPolicy) {
		this.retryPolicy = retryPolicy;
		return self();
	}

	/**
	 * Sets the back-off between reconnects after a lost connection and between looks at a
	 * slot another process holds ({@link ReconnectPolicy#DEFAULT} by default: 100 ms,
	 * doubling, at most 5 s). Reconnecting never gives up and uses none of a handler's
	 * attempts.
	 * @param reconnectPolicy the policy
	 * @return this builder
	 */
	public B reconnectPolicy(ReconnectPolicy reconnectPolicy) {
		this.reconnectPolicy = reconnectPolicy;
		return self();
	}

	/**
	 * Sets how many transactions may be in flight, delivered but not yet acknowledged by
	 * every subscription, before delivery waits (1000 by default); the connection stays
	 * alive while it waits.
	 * @param maxUnacknowledged the limit
	 * @return this builder
	 */
	public B maxUnacknowledged(int maxUnacknowledged) {
		this.maxUnacknowledged = maxUnacknowledged;
		return self();
	}

	/**
	 * Sets column masks: every change, streamed, snapshot or backfilled, is masked before
	 * any subscription sees it, so no subscription (nor a Kafka relay or dead-letter
	 * writer built on one) receives a masked column's value.
	 * @param masks the masks
	 * @return this builder
	 */
	public B masks(ColumnMasks masks) {
		this.masks = masks;
		return self();
	}

	/**
	 * Sets how long an {@link io.postlog.Acknowledgment} may stay outstanding before a
	 * warning is logged naming the subscription and the change (60 s by default);
	 * {@link SubscriptionControl#oldestUnacknowledged()} shows it meanwhile.
	 * @param unacknowledgedWarning the bound
	 * @return this builder
	 */
	public B unacknowledgedWarning(Duration unacknowledgedWarning) {
		this.unacknowledgedWarning = unacknowledgedWarning;
		return self();
	}

	/**
	 * Sets the most changes a transaction handler may be given at once (100000 by
	 * default); a larger transaction fails the consumer.
	 * @param maxTransactionChanges the limit
	 * @return this builder
	 */
	public B maxTransactionChanges(int maxTransactionChanges) {
		this.maxTransactionChanges = maxTransactionChanges;
		return self();
	}

	/**
	 * Sets how far the reader may read ahead of delivery: at most this many events (1024
	 * by default) standing for at most this many payload bytes (32 MB by default; a
	 * single larger change passes alone).
	 * @param events the most events
	 * @param bytes the most payload bytes
	 * @return this builder
	 */
	public B readAhead(int events, long bytes) {
		this.readAheadEvents = events;
		this.readAheadBytes = bytes;
		return self();
	}

	/**
	 * Sets the listener. The consumer calls it through a {@link GuardedConsumerListener}:
	 * an exception it throws (except from {@code snapshotStarted}) is logged by class and
	 * counted, and delivery goes on. To observe with several, pass
	 * {@link GuardedConsumerListener#of(List)}.
	 * @param listener the listener
	 * @return this builder
	 */
	public B listener(ConsumerListener listener) {
		this.listener = listener;
		return self();
	}

	/**
	 * Sets the value decoders; with an admin connection the consumer adds a catalog
	 * look-up for enum and domain types.
	 * @param valueDecoders the decoders
	 * @return this builder
	 */
	public B valueDecoders(ValueDecoders valueDecoders) {
		this.valueDecoders = valueDecoders;
		return self();
	}

	/**
	 * Sets how long {@link ReplicationConsumer#stop()} waits for the transaction in
	 * delivery (30 s by default).
	 * @param stopTimeout the timeout
	 * @return this builder
	 */
	public B stopTimeout(Duration stopTimeout) {
		this.stopTimeout = stopTimeout;
		return self();
	}

	/**
	 * Sets where progress is kept besides the slot (by default nowhere: the slot's
	 * confirmed position is the only record); a transactional store makes delivery
	 * effect-once for a sink in its transactions.
	 * @param checkpointStore the store
	 * @return this builder
	 */
	public B checkpointStore(CheckpointStore checkpointStore) {
		this.checkpointStore = checkpointStore;
		return self();
	}

	/**
	 * Lets one sink transaction of a transactional checkpoint store cover up to
	 * {@code transactions} source transactions (1 by default), committing early when no
	 * more are waiting or when it has been open for {@code maxDelay} (100 ms by default),
	 * so that a trickle is not held back.
	 * @param transactions the most source transactions per sink transaction
	 * @param maxDelay the longest a sink transaction waits for more
	 * @return this builder
	 */
	public B checkpointBatch(int transactions, Duration maxDelay) {
		this.checkpointBatch = transactions;
		this.checkpointBatchDelay = maxDelay;
		return self();
	}

	/**
	 * Asks the server to stream large transactions while they are in progress (PostgreSQL
	 * 14+, pgoutput protocol 2; refused at start on older servers) instead of buffering
	 * them until their commit, which it does in its own memory and then in spill files
	 * under {@code pg_replslot}. The consumer keeps each in-progress transaction in up to
	 * {@code memory} bytes of heap, all together, spills the rest to files under
	 * {@code spillDirectory} (in a private directory, owner-only, removed when the
	 * transaction commits or aborts and when the consumer stops or next starts), and
	 * delivers it at its commit exactly as without streaming: same order, indexes, ids,
	 * commit LSN and time; aborted transactions and rolled back savepoints are dropped. A
	 * transaction that needs more than {@code maxSpill} bytes of spill files fails the
	 * consumer with a {@link SpillLimitExceededException} and nothing from it on is
	 * acknowledged. Streaming does not make the slot retain less WAL: the slot still
	 * keeps it back to the start of the oldest open transaction.
	 * @param memory the most bytes of stream messages kept on the heap
	 * @param spillDirectory the directory to spill under (a tmpfs holds its files in
	 * memory)
	 * @param maxSpill the most bytes of spill files; 0 allows no spilling
	 * @return this builder
	 */
	public B streaming(long memory, Path spillDirectory, long maxSpill) {
		this.streaming = true;
		this.streamingMemory = memory;
		this.spillDirectory = spillDirectory;
		this.maxSpill = maxSpill;
		return self();
	}

	/**
	 * Lets this consumer backfill tables while it streams
	 * ({@link ReplicationConsumer#backfill}), and resume the backfills a previous run
	 * left unfinished. Chunks are read on connections of their own (from
	 * {@link ReplicationConsumer.Builder#snapshotConnections}, the admin data source or
	 * the JDBC URL); on PostgreSQL 14 and later the stream then carries logical decoding
	 * messages.
	 * @param chunkSize the most rows one chunk holds, and so in memory at once
	 * @return this builder
	 */
	public B backfills(int chunkSize) {
		this.backfillChunkSize = chunkSize;
		return self();
	}

	/**
	 * Sets the most unfinished backfills (pending or running) this consumer holds
	 * (default 16): {@link ReplicationConsumer#backfill} past it throws
	 * {@link BackfillQueueFullException}, before anything is recorded. Backfills resumed
	 * after a restart and those of {@link ReplicationConsumer.Builder#backfillNewTables}
	 * count, and are never refused.
	 * @param maxQueued the bound, at least 1
	 * @return this builder
	 */
	public B maxQueuedBackfills(int maxQueued) {
		this.maxQueuedBackfills = maxQueued;
		return self();
	}

	/**
	 * Backfills, once streaming, the tables that publication mode {@code SYNC} adds to
	 * the publication at start (unless an initial snapshot reads them now): a deploy that
	 * adds a listener on a table gets its rows as {@code SNAPSHOT} changes while the
	 * other tables stream. Needs {@link ReplicationConsumer.Builder#backfills(int)}.
	 * @param newTables whether to backfill them
	 * @return this builder
	 */
	public B backfillNewTables(boolean newTables) {
		this.backfillNewTables = newTables;
		return self();
	}

	/**
	 * Sets the table whose updates are the backfill watermarks before PostgreSQL 14
	 * (default {@code public.postlog_watermark}); it is created and published when
	 * missing.
	 * @param table the table
	 * @return this builder
	 */
	public B watermarkTable(TableId table) {
		this.watermarkTable = Objects.requireNonNull(table, "table");
		return self();
	}

	/**
	 * Sets the table backfill progress is recorded in (default
	 * {@code public.postlog_backfill}); it is created when missing.
	 * @param table the table
	 * @return this builder
	 */
	public B backfillProgressTable(TableId table) {
		this.backfillProgressTable = Objects.requireNonNull(table, "table");
		return self();
	}

	@Nullable BackfillSettings backfillSettings() {
		if (this.backfillChunkSize == 0) {
			if (this.backfillNewTables) {
				throw new ReplicationConsumerException(
						"Backfilling new tables needs backfills: call " + "backfills(chunkSize) as well");
			}
			return null;
		}
		SnapshotConnections readers = readers();
		if (readers == null) {
			throw new ReplicationConsumerException("A backfill reads the tables on connections of its own, which "
					+ "one shared admin connection cannot give: set snapshotConnections, adminDataSource or "
					+ "jdbcUrl");
		}
		return new BackfillSettings(this.backfillChunkSize, this.watermarkTable, this.backfillProgressTable, readers,
				this.backfillNewTables, this.maxQueuedBackfills);
	}

	@Nullable StreamingOptions streamingOptions() {
		if (!this.streaming) {
			return null;
		}
		try {
			return new StreamingOptions(this.streamingMemory, Objects.requireNonNull(this.spillDirectory),
					this.maxSpill);
		}
		catch (IllegalArgumentException | NullPointerException ex) {
			throw new ReplicationConsumerException("Invalid consumer configuration: streaming (" + ex.getMessage()
					+ "; memory and maxSpill not negative, a spill directory)");
		}
	}

}
