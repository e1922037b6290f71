package io.postlog.snapshot;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The rows of one backfill chunk in key order, where the next chunk starts, and what the
 * read saw. Immutable.
 *
 * @param rows the rows
 * @param lastKey the last row's key columns in their text form, to read on after; or
 * {@code null} when the chunk is empty
 * @param visibility which transactions the read saw
 */
public record BackfillChunk(List<BackfillRow> rows, @Nullable List<String> lastKey, ReadVisibility visibility) {

	/**
	 * Creates a chunk.
	 * @param rows the rows (copied)
	 * @param lastKey the last key, or {@code null}
	 * @param visibility the read's visibility
	 */
	public BackfillChunk {
		rows = List.copyOf(rows);
		lastKey = (lastKey != null) ? List.copyOf(lastKey) : null;
	}

}
