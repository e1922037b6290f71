package io.postlog.snapshot;

import java.util.Objects;

import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import org.jspecify.annotations.Nullable;

/**
 * Which rows of a table one snapshot chunk covers, in a form that can be recorded and
 * read again after a crash: a range of heap blocks, a range of an integer key column, or
 * the whole table. Bounds are numbers and the column a name that {@link #where()} quotes,
 * so a recorded range never brings text of its own into SQL. Immutable.
 *
 * @param table the table
 * @param index the chunk's 0-based position among the table's chunks
 * @param kind what the bounds count
 * @param column the key column of a {@link Kind#KEYS} range, else {@code null}
 * @param from the first block or key (inclusive), or {@code null} from the start
 * @param to the block or key the range ends before, or {@code null} to the end
 */
public record ChunkRange(TableId table, int index, Kind kind, @Nullable String column, @Nullable Long from,
		@Nullable Long to) {

	/**
	 * Creates a range.
	 * @param table the table
	 * @param index the chunk's position
	 * @param kind the kind
	 * @param column the key column, for {@link Kind#KEYS}
	 * @param from the start, or {@code null}
	 * @param to the end, or {@code null}
	 */
	public ChunkRange {
		Objects.requireNonNull(table, "table");
		Objects.requireNonNull(kind, "kind");
		if ((kind == Kind.KEYS) != (column != null)) {
			throw new IllegalArgumentException("A key range, and only a key range, names its column");
		}
	}

	/**
	 * The whole table.
	 * @param table the table
	 * @return the range
	 */
	public static ChunkRange whole(TableId table) {
		return new ChunkRange(table, 0, Kind.WHOLE, null, null, null);
	}

	/**
	 * Returns the SQL condition selecting the range's rows.
	 * @return the condition, or {@code null} for the whole table
	 */
	public @Nullable String where() {
		String lower;
		String upper;
		switch (this.kind) {
			case BLOCKS -> {
				lower = (this.from != null) ? "ctid >= '(" + this.from + ",0)'::tid" : null;
				upper = (this.to != null) ? "ctid < '(" + this.to + ",0)'::tid" : null;
			}
			case KEYS -> {
				String quoted = PgIdentifiers.quote("column", Objects.requireNonNull(this.column));
				lower = (this.from != null) ? quoted + " >= " + this.from : null;
				upper = (this.to != null) ? quoted + " < " + this.to : null;
			}
			default -> {
				return null;
			}
		}
		if (lower == null) {
			return upper;
		}
		return (upper == null) ? lower : lower + " AND " + upper;
	}

	/**
	 * What a range's bounds count.
	 */
	public enum Kind {

		/** Heap blocks, read by a TID range scan (PostgreSQL 14 and later). */
		BLOCKS,

		/** Values of a single-column integer key. */
		KEYS,

		/** The whole table. */
		WHOLE

	}

}
