package io.postlog.snapshot;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.postlog.Lsn;

/**
 * What a completed snapshot read delivered. Immutable.
 *
 * @param consistentPoint the snapshot's consistent point, where the stream takes over
 * @param rows rows delivered, over all tables
 * @param tables each table's final progress, in the order the tables were given
 * @param duration from the first reader connection to the last row delivered
 */
public record SnapshotResult(Lsn consistentPoint, long rows, List<TableProgress> tables, Duration duration) {

	/**
	 * Creates a result.
	 * @param consistentPoint the consistent point
	 * @param rows the rows delivered
	 * @param tables the tables' progress
	 * @param duration the duration
	 */
	public SnapshotResult {
		Objects.requireNonNull(consistentPoint, "consistentPoint");
		tables = List.copyOf(tables);
		Objects.requireNonNull(duration, "duration");
	}

}
