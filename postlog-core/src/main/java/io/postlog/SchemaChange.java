package io.postlog;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One change of a published table's shape, delivered in commit order before the first
 * change of a row in the new shape. {@link #before()} and {@link #after()} are the
 * table's whole shape on either side of this one step; several steps of one
 * {@code ALTER TABLE} come as several schema changes, each {@code before()} the previous
 * one's {@code after()}. Immutable.
 *
 * @param table the table, as named after the change ({@link Kind#DROP_TABLE}: before)
 * @param kind what changed
 * @param before the shape before, {@code null} for {@link Kind#CREATE_TABLE}
 * @param after the shape after, {@code null} for {@link Kind#DROP_TABLE}
 * @param commitLsn the commit LSN of the transaction the change was seen in: the DDL's
 * own with {@code postlog.schema.ddl-events}, else the first transaction that changed a
 * row of the table in the new shape
 */
public record SchemaChange(TableId table, Kind kind, @Nullable TableSchema before, @Nullable TableSchema after,
		Lsn commitLsn) {

	/**
	 * Creates a schema change.
	 * @param table the table
	 * @param kind the kind
	 * @param before the shape before
	 * @param after the shape after
	 * @param commitLsn the commit LSN
	 */
	public SchemaChange {
		Objects.requireNonNull(table, "table");
		Objects.requireNonNull(kind, "kind");
		Objects.requireNonNull(commitLsn, "commitLsn");
	}

	/** What a schema change changed. */
	public enum Kind {

		/** A column was added. */
		ADD_COLUMN,

		/** A column was dropped. */
		DROP_COLUMN,

		/** A column was renamed. */
		RENAME_COLUMN,

		/** A column's type (or type modifier) changed. */
		ALTER_TYPE,

		/** A column became nullable or {@code NOT NULL}. */
		ALTER_NULLABILITY,

		/**
		 * The replica identity changed: a new primary key, another replica identity
		 * index, or {@code REPLICA IDENTITY FULL}, {@code DEFAULT} or {@code NOTHING}.
		 */
		ALTER_KEY,

		/** A table was created (or published for the first time). */
		CREATE_TABLE,

		/** A table was dropped. */
		DROP_TABLE,

		/** A table was renamed or moved to another schema. */
		RENAME_TABLE

	}

	/**
	 * Describes the change without values, for logs and errors.
	 * @return for example {@code DROP_COLUMN on public.orders at commit LSN 0/16B374D}
	 */
	public String describe() {
		return this.kind + " on " + this.table + " at commit LSN " + this.commitLsn;
	}

}
