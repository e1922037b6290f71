package io.postlog.consumer.backfill;

import java.util.Objects;

import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.snapshot.SnapshotConnections;

/**
 * How a consumer backfills tables while it streams, checked when it is built.
 *
 * @param chunkSize the most rows one chunk holds ({@code postlog.snapshot.chunk-size})
 * @param watermarkTable the table whose updates are the watermarks before PostgreSQL 14
 * ({@code postlog.snapshot.watermark-table}); created and published when missing
 * @param progressTable the table each backfill's progress is recorded in, created when
 * missing
 * @param readers opens the ordinary connections chunks are read on
 * @param newTables whether the tables publication mode {@code SYNC} adds at start are
 * backfilled ({@code postlog.snapshot.new-tables=backfill})
 * @param maxQueued the most unfinished backfills (pending or running) a request may find
 * before it is refused ({@code postlog.snapshot.max-queued-backfills})
 * <p>
 * Internal: public only so the consumer's builder can make it; not part of postlog's API.
 */
public record BackfillSettings(int chunkSize, TableId watermarkTable, TableId progressTable,
		SnapshotConnections readers, boolean newTables, int maxQueued) {

	/** The default of {@code maxQueued}. */
	public static final int DEFAULT_MAX_QUEUED = 16;

	/** The default watermark table. */
	public static final TableId DEFAULT_WATERMARK_TABLE = TableId.parse("postlog_watermark");

	/** The default progress table. */
	public static final TableId DEFAULT_PROGRESS_TABLE = TableId.parse("postlog_backfill");

	/**
	 * Checks the settings.
	 * @throws ReplicationConsumerException if one is out of range
	 */
	public BackfillSettings {
		if (chunkSize < 1) {
			throw new ReplicationConsumerException(
					"Invalid consumer configuration: backfill chunk size (at least 1), not " + chunkSize);
		}
		if (maxQueued < 1) {
			throw new ReplicationConsumerException(
					"Invalid consumer configuration: most queued backfills (at least 1), not " + maxQueued);
		}
		PgIdentifiers.quote(watermarkTable);
		PgIdentifiers.quote(progressTable);
		Objects.requireNonNull(readers, "readers");
	}

}
