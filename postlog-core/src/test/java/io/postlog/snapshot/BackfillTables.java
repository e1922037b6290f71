package io.postlog.snapshot;

import java.util.List;

import io.postlog.TableId;
import io.postlog.types.ValueDecoder;

/**
 * Backfill tables for unit tests of the stream side of backfills, which never read them.
 */
public final class BackfillTables {

	private BackfillTables() {
	}

	/**
	 * Returns a table keyed by its first column.
	 * @param table the table
	 * @param columns its columns, the key first; each an {@code int4}
	 * @return the table
	 */
	public static BackfillTable keyedByFirst(TableId table, List<String> columns) {
		int[] types = new int[columns.size()];
		java.util.Arrays.fill(types, 23);
		TablePlan plan = new TablePlan(table, 1, false, columns, types, new ValueDecoder[columns.size()], null, 0,
				List.of());
		return new BackfillTable(plan, new int[] { 0 }, List.of("integer"), true, null);
	}

}
