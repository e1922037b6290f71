package io.postlog.benchmarks.e2e;

import io.postlog.Change;
import io.postlog.Row;
import org.jspecify.annotations.Nullable;

/**
 * Reads every value of a change by column name, as a handler that uses the row would.
 */
final class Touch {

	private Touch() {
	}

	static long change(Change change) {
		return row(change.before()) + row(change.after());
	}

	static long row(@Nullable Row row) {
		if (row == null) {
			return 0;
		}
		long sum = 0;
		for (String column : row.columns()) {
			Object value = row.get(column);
			sum += (value != null) ? value.hashCode() : 0;
		}
		return sum;
	}

}
