package io.postlog.snapshot;

import java.util.ArrayList;
import java.util.List;

import io.postlog.Row;
import org.jspecify.annotations.Nullable;

/**
 * The rows of one backfill chunk in key order, where the next chunk starts, and what the
 * read saw. The rows keep their values encoded until {@link #row} or {@link #key} decodes
 * them (see {@link BackfillRow}), so a value that does not decode surfaces there, as a
 * {@link SnapshotReadException} naming the table and column, never the value. Immutable.
 *
 * @param table the table read
 * @param binary whether the values are binary (else text)
 * @param rows the rows
 * @param lastKey the last row's key columns in their text form, to read on after; or
 * {@code null} when the chunk is empty
 * @param visibility which transactions the read saw
 */
public record BackfillChunk(BackfillTable table, boolean binary, List<BackfillRow> rows, @Nullable List<String> lastKey,
		ReadVisibility visibility) {

	private static final String WHERE = "a backfill chunk";

	/**
	 * Creates a chunk.
	 * @param table the table
	 * @param binary whether the values are binary
	 * @param rows the rows (copied)
	 * @param lastKey the last key, or {@code null}
	 * @param visibility the read's visibility
	 */
	public BackfillChunk {
		rows = List.copyOf(rows);
		lastKey = (lastKey != null) ? List.copyOf(lastKey) : null;
	}

	/**
	 * Decodes a row, every published column as the stream decodes it.
	 * @param index the row's position in the chunk
	 * @return the row
	 * @throws SnapshotReadException if a value does not decode
	 */
	public Row row(int index) {
		TablePlan plan = this.table.plan;
		byte[] data = this.rows.get(index).values();
		@Nullable Object[] values = new Object[plan.columnNames.size()];
		int at = 0;
		for (int column = 0; column < values.length; column++) {
			int length = length(data, at);
			at += 4;
			if (length >= 0) {
				values[column] = BackfillReader.decode(plan, column, data, at, length, this.binary, WHERE);
				at += length;
			}
		}
		return Row.ofOwned(plan.columns, values);
	}

	/**
	 * Decodes a row's key, as {@link BackfillTable#keyOf} gives a streamed change's.
	 * @param index the row's position in the chunk
	 * @return the key, in the key's index order
	 * @throws SnapshotReadException if a key value does not decode
	 */
	public List<@Nullable Object> key(int index) {
		TablePlan plan = this.table.plan;
		byte[] data = this.rows.get(index).values();
		int[] starts = new int[plan.columnNames.size()];
		int at = 0;
		for (int column = 0; column < starts.length; column++) {
			starts[column] = at;
			at += 4 + Math.max(0, length(data, at));
		}
		int[] positions = this.table.keyPositions;
		List<@Nullable Object> key = new ArrayList<>(positions.length);
		for (int position : positions) {
			int start = starts[position];
			int length = length(data, start);
			Object value = (length >= 0)
					? BackfillReader.decode(plan, position, data, start + 4, length, this.binary, WHERE) : null;
			key.add(BackfillTable.keyValue(value));
		}
		return key;
	}

	static int length(byte[] data, int at) {
		return ((data[at] & 0xff) << 24) | ((data[at + 1] & 0xff) << 16) | ((data[at + 2] & 0xff) << 8)
				| (data[at + 3] & 0xff);
	}

}
