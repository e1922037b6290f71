package io.postlog.benchmarks.e2e;

import java.util.List;

import io.postlog.Change;
import io.postlog.Row;
import org.jspecify.annotations.Nullable;

/**
 * Reads every value of a change by column name, as a handler that uses the row would.
 */
public final class Touch {

	private Touch() {
	}

	public static long change(Change change) {
		return row(change.before()) + row(change.after());
	}

	static long row(@Nullable Row row) {
		if (row == null) {
			return 0;
		}
		long sum = 0;
		// By index: an iterator would be the benchmark's own allocation, not postlog's.
		List<String> columns = row.columns();
		for (int i = 0; i < columns.size(); i++) {
			Object value = row.get(columns.get(i));
			sum += (value != null) ? value.hashCode() : 0;
		}
		return sum;
	}

}
