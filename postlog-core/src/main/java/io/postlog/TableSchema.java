package io.postlog;

import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The shape of a published table as postlog knows it at one point of the stream: its name
 * and its published columns in table order. Immutable.
 *
 * @param table the table
 * @param columns the columns in table order (copied)
 */
public record TableSchema(TableId table, List<Column> columns) {

	/**
	 * Creates a table shape.
	 * @param table the table
	 * @param columns the columns
	 */
	public TableSchema {
		Objects.requireNonNull(table, "table");
		columns = List.copyOf(columns);
	}

	/**
	 * Returns the column of a name.
	 * @param name the column name
	 * @return the column, or {@code null} if the table has no such column
	 */
	public @Nullable Column column(String name) {
		for (Column column : this.columns) {
			if (column.name().equals(name)) {
				return column;
			}
		}
		return null;
	}

	/**
	 * One published column.
	 *
	 * @param name the column name
	 * @param typeOid the OID of its type ({@code atttypid})
	 * @param typeName its type as {@code format_type} prints it, with its modifier (for
	 * example {@code character varying(20)}); the type OID in decimal when postlog has no
	 * catalog connection
	 * @param nullable whether it may hold SQL NULL ({@code NOT attnotnull}); {@code true}
	 * when the catalog could not say (see the docs' "Schema changes" page)
	 * @param key whether it belongs to the replica identity the server sends (every
	 * column under {@code REPLICA IDENTITY FULL}, none under {@code NOTHING})
	 */
	public record Column(String name, int typeOid, String typeName, boolean nullable, boolean key) {

		/**
		 * Creates a column.
		 * @param name the name
		 * @param typeOid the type OID
		 * @param typeName the type name
		 * @param nullable whether it is nullable
		 * @param key whether it is a key column
		 */
		public Column {
			Objects.requireNonNull(name, "name");
			Objects.requireNonNull(typeName, "typeName");
		}

	}

}
