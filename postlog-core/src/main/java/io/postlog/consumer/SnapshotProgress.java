package io.postlog.consumer;

import java.util.List;
import java.util.Objects;

import io.postlog.Lsn;
import io.postlog.snapshot.TableProgress;

/**
 * How far a consumer's initial snapshot has got: per table, rows delivered and estimated.
 * Immutable: a copy taken at one moment.
 *
 * @param consistentPoint the snapshot's consistent point, where the stream takes over
 * @param tables each table's progress, in the order the tables are read; empty until the
 * tables were planned
 * @param complete whether the snapshot was delivered and handed over to the stream
 */
public record SnapshotProgress(Lsn consistentPoint, List<TableProgress> tables, boolean complete) {

	/**
	 * Creates a progress record.
	 * @param consistentPoint the consistent point
	 * @param tables the tables' progress
	 * @param complete whether handed over
	 */
	public SnapshotProgress {
		Objects.requireNonNull(consistentPoint, "consistentPoint");
		tables = List.copyOf(tables);
	}

	/**
	 * Returns the rows delivered, over all tables.
	 * @return the rows
	 */
	public long rowsDone() {
		return this.tables.stream().mapToLong(TableProgress::rowsDone).sum();
	}

	/**
	 * Returns the rows the catalog expects, over all tables.
	 * @return the rows, or {@code -1} when a table's estimate is unknown (never vacuumed
	 * or analyzed)
	 */
	public long rowsEstimated() {
		long rows = 0;
		for (TableProgress table : this.tables) {
			if (table.rowsEstimated() < 0) {
				return -1;
			}
			rows += table.rowsEstimated();
		}
		return rows;
	}

}
