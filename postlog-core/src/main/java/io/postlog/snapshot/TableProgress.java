package io.postlog.snapshot;

import java.util.Objects;

import io.postlog.TableId;

/**
 * How far the snapshot of one table has got. Immutable: a copy taken at one moment.
 *
 * @param table the table
 * @param rowsDone rows delivered to the sink (the sink returned)
 * @param rowsEstimated rows the catalog expects ({@code pg_class.reltuples} scaled to the
 * table's current size), or {@code -1} when the table was never vacuumed or analyzed
 * @param chunksDone chunks read to the end
 * @param chunksTotal chunks the table was split into
 * @param done whether every row of the table was delivered
 */
public record TableProgress(TableId table, long rowsDone, long rowsEstimated, int chunksDone, int chunksTotal,
		boolean done) {

	/**
	 * Creates a progress record.
	 * @param table the table
	 * @param rowsDone rows delivered
	 * @param rowsEstimated rows estimated, or -1
	 * @param chunksDone chunks read
	 * @param chunksTotal chunks planned
	 * @param done whether done
	 */
	public TableProgress {
		Objects.requireNonNull(table, "table");
	}

}
