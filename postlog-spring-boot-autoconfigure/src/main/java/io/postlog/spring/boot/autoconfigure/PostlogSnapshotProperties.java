package io.postlog.spring.boot.autoconfigure;

import io.postlog.spring.boot.autoconfigure.PostlogProperties.NewTables;
import io.postlog.spring.boot.autoconfigure.PostlogProperties.SnapshotMode;
import org.jspecify.annotations.Nullable;

/**
 * Initial snapshot settings. Bound under {@code postlog.snapshot}, a group of
 * {@link PostlogProperties}; not thread-safe, bound once at start-up.
 */
public class PostlogSnapshotProperties {

	/**
	 * Whether to read the published tables when postlog creates the slot, and deliver
	 * every row as a SNAPSHOT change before streaming from the slot's consistent point.
	 */
	private SnapshotMode mode = SnapshotMode.NEVER;

	/**
	 * Number of connections that read the snapshot at once, 1 to 64; one with
	 * checkpoint.store=jdbc, whose sink transactions take one chunk each.
	 */
	private int parallelism = 2;

	/**
	 * About how many rows one chunk of a table holds; chunks are read one COPY each.
	 */
	private int chunkSize = 100_000;

	/**
	 * Table, as schema.table or table (public), in which an initial snapshot records
	 * whether it started, recorded its chunks or completed (a resumable snapshot on every
	 * version, any snapshot on PostgreSQL 10 and 11); created when needed.
	 */
	private String markerTable = "postlog_snapshot";

	/**
	 * Whether the tables that publication mode sync adds at start are backfilled while
	 * the others stream; default backfill when the mode is initial, else skip.
	 */
	private @Nullable NewTables newTables;

	/**
	 * Table, as schema.table or table (public), whose updates are the backfill watermarks
	 * before PostgreSQL 14; created and published when needed.
	 */
	private String watermarkTable = "postlog_watermark";

	/**
	 * Most backfills a consumer group holds unfinished (pending or running); a request
	 * past it is refused, before anything is recorded.
	 */
	private int maxQueuedBackfills = 16;

	public SnapshotMode getMode() {
		return this.mode;
	}

	public void setMode(SnapshotMode mode) {
		this.mode = mode;
	}

	public int getParallelism() {
		return this.parallelism;
	}

	public void setParallelism(int parallelism) {
		this.parallelism = parallelism;
	}

	public int getChunkSize() {
		return this.chunkSize;
	}

	public void setChunkSize(int chunkSize) {
		this.chunkSize = chunkSize;
	}

	public String getMarkerTable() {
		return this.markerTable;
	}

	public void setMarkerTable(String markerTable) {
		this.markerTable = markerTable;
	}

	public @Nullable NewTables getNewTables() {
		return this.newTables;
	}

	public void setNewTables(@Nullable NewTables newTables) {
		this.newTables = newTables;
	}

	public String getWatermarkTable() {
		return this.watermarkTable;
	}

	public void setWatermarkTable(String watermarkTable) {
		this.watermarkTable = watermarkTable;
	}

	public int getMaxQueuedBackfills() {
		return this.maxQueuedBackfills;
	}

	public void setMaxQueuedBackfills(int maxQueuedBackfills) {
		this.maxQueuedBackfills = maxQueuedBackfills;
	}

	/**
	 * Returns whether added tables are backfilled, the default applied.
	 * @return whether to backfill them
	 */
	public boolean backfillsNewTables() {
		return (this.newTables != null) ? this.newTables == NewTables.BACKFILL : this.mode == SnapshotMode.INITIAL;
	}

}
