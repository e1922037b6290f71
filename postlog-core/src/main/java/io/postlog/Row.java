package io.postlog;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * One row of a table: column names in table order and their decoded values. Immutable and
 * thread-safe. A value is {@code null} for SQL {@code NULL} and
 * {@link UnchangedToast#INSTANCE} for a TOASTed value the server did not resend.
 * {@link #toString()} names the columns but prints no values.
 * <p>
 * A row need not hold every column of its table: the old image of a {@code DELETE} (and
 * of an {@code UPDATE} that changed the key) holds only the replica-identity key columns
 * unless the table has {@code REPLICA IDENTITY FULL}; {@link #isKeyOnly()} says so.
 * {@link #get(String)} fails for a column the row does not hold; {@link #find(String)}
 * and {@link #contains(String)} read a column that may be absent.
 */
public final class Row {

	private final Columns columns;

	private final @Nullable Object[] values;

	private Row(Columns columns, @Nullable Object[] values) {
		this.columns = columns;
		this.values = values;
	}

	/**
	 * Returns the column layout for a list of names, to be shared by every row of one
	 * table.
	 * @param names the column names in table order
	 * @return the layout
	 */
	public static Columns columns(List<String> names) {
		return new Columns(names, null);
	}

	/**
	 * Returns the column layout of a key-only image: the replica-identity key columns of
	 * a table, whose other columns the image leaves out.
	 * @param keyNames the key column names in table order
	 * @param tableNames every column name of the table, in table order
	 * @return the layout
	 */
	public static Columns keyColumns(List<String> keyNames, List<String> tableNames) {
		return new Columns(keyNames, List.copyOf(tableNames));
	}

	/**
	 * Creates a row.
	 * @param columns the column layout
	 * @param values one value per column, in the same order (copied)
	 * @return the row
	 */
	public static Row of(Columns columns, @Nullable Object[] values) {
		if (values.length != columns.names.size()) {
			throw new IllegalArgumentException(
					"Row has " + values.length + " values for " + columns.names.size() + " columns");
		}
		return new Row(columns, values.clone());
	}

	/**
	 * Creates a row that takes the array it is given instead of copying it: for code that
	 * decodes rows in bulk (postlog's decoders do). The caller hands the array over and
	 * must not change it afterwards.
	 * @param columns the column layout
	 * @param values one value per column, in the same order (not copied)
	 * @return the row
	 */
	public static Row ofOwned(Columns columns, @Nullable Object[] values) {
		if (values.length != columns.names.size()) {
			throw new IllegalArgumentException(
					"Row has " + values.length + " values for " + columns.names.size() + " columns");
		}
		return new Row(columns, values);
	}

	/**
	 * Creates a row from a map, keeping the map's iteration order.
	 * @param values column names to values
	 * @return the row
	 */
	public static Row of(Map<String, ?> values) {
		return new Row(new Columns(List.copyOf(values.keySet()), null), values.values().toArray());
	}

	/**
	 * Returns the column names in table order.
	 * @return the names
	 */
	public List<String> columns() {
		return this.columns.names;
	}

	/**
	 * Returns whether the row has a column.
	 * @param column the column name
	 * @return {@code true} if present
	 */
	public boolean contains(String column) {
		return this.columns.indexes.containsKey(column);
	}

	/**
	 * Returns whether this row is a key-only image: the old row of a {@code DELETE}, or
	 * of an {@code UPDATE} that changed the key, on a table without
	 * {@code REPLICA IDENTITY FULL}, which holds only the replica-identity key columns.
	 * @return {@code true} if the row holds the key columns only
	 */
	public boolean isKeyOnly() {
		return this.columns.tableNames != null;
	}

	/**
	 * Returns a column's value, if the row holds the column: a lookup that a key-only
	 * image ({@link #isKeyOnly()}) does not make fail.
	 * @param column the column name
	 * @return the value, or empty when the row does not hold the column or its value is
	 * SQL {@code NULL} ({@link #contains(String)} tells the two apart)
	 */
	public Optional<Object> find(String column) {
		Integer index = this.columns.indexes.get(column);
		return (index != null) ? Optional.ofNullable(this.values[index]) : Optional.empty();
	}

	/**
	 * Returns a column's value.
	 * @param column the column name
	 * @return the value, {@code null} for SQL {@code NULL}
	 * @throws IllegalArgumentException if the row has no such column; for a key-only
	 * image ({@link #isKeyOnly()}) the message explains that the column was left out
	 */
	public @Nullable Object get(String column) {
		return this.values[index(column)];
	}

	/**
	 * Returns a column's value as a type.
	 * @param <T> the type
	 * @param column the column name
	 * @param type the expected type
	 * @return the value, {@code null} for SQL {@code NULL}
	 * @throws IllegalArgumentException if there is no such column
	 * @throws ClassCastException if the value has another type (the message names the
	 * column and the types, not the value)
	 */
	public <T> @Nullable T get(String column, Class<T> type) {
		Object value = get(column);
		if (value == null || type.isInstance(value)) {
			return type.cast(value);
		}
		throw new ClassCastException(
				"Column '" + column + "' holds a " + value.getClass().getName() + ", not a " + type.getName());
	}

	/**
	 * Returns whether a column holds an unchanged TOASTed value the server did not send.
	 * @param column the column name
	 * @return {@code true} for {@link UnchangedToast}
	 */
	public boolean isUnchangedToast(String column) {
		return get(column) == UnchangedToast.INSTANCE;
	}

	/**
	 * Returns a copy of this row with some values replaced, with the same columns (a
	 * key-only image stays one). This row is unchanged.
	 * @param values the new values by column name; names this row lacks are ignored
	 * @return the copy, or this row when no name is among its columns
	 */
	public Row with(Map<String, ? extends @Nullable Object> values) {
		@Nullable Object[] copy = null;
		for (Map.Entry<String, ? extends @Nullable Object> entry : values.entrySet()) {
			Integer index = this.columns.indexes.get(entry.getKey());
			if (index != null) {
				copy = (copy != null) ? copy : this.values.clone();
				copy[index] = entry.getValue();
			}
		}
		return (copy != null) ? new Row(this.columns, copy) : this;
	}

	/**
	 * Returns the row as an unmodifiable map in column order; SQL {@code NULL} maps to
	 * {@code null}.
	 * @return the map
	 */
	public Map<String, @Nullable Object> asMap() {
		Map<String, @Nullable Object> map = new LinkedHashMap<>();
		List<String> names = this.columns.names;
		for (int i = 0; i < names.size(); i++) {
			map.put(names.get(i), this.values[i]);
		}
		return Collections.unmodifiableMap(map);
	}

	private int index(String column) {
		Integer index = this.columns.indexes.get(column);
		if (index == null) {
			List<String> tableNames = this.columns.tableNames;
			if (tableNames != null && tableNames.contains(column)) {
				throw new IllegalArgumentException("Column '" + column + "' is not in this key-only row image (columns "
						+ this.columns.names + "): a DELETE (or an UPDATE's before image) carries only the "
						+ "replica-identity key columns unless the table has REPLICA IDENTITY FULL; use Row.find or "
						+ "Row.contains for a column that may be absent, or Change.before() of a table with "
						+ "REPLICA IDENTITY FULL for the whole old row");
			}
			throw new IllegalArgumentException("No column '" + column + "' in row with columns " + this.columns.names);
		}
		return index;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		if (!(other instanceof Row row)) {
			return false;
		}
		return this.columns.names.equals(row.columns.names) && Arrays.deepEquals(this.values, row.values);
	}

	@Override
	public int hashCode() {
		return 31 * this.columns.names.hashCode() + Arrays.deepHashCode(this.values);
	}

	@Override
	public String toString() {
		return "Row" + this.columns.names;
	}

	/**
	 * The column names of a table, or of its key-only images, shared by its rows.
	 * Immutable.
	 */
	public static final class Columns {

		private final List<String> names;

		private final Map<String, Integer> indexes;

		/** Every column of the table when these are a key-only image's, else null. */
		private final @Nullable List<String> tableNames;

		private Columns(List<String> names, @Nullable List<String> tableNames) {
			this.tableNames = tableNames;
			this.names = List.copyOf(names);
			Map<String, Integer> indexes = new HashMap<>();
			for (int i = 0; i < this.names.size(); i++) {
				if (indexes.put(this.names.get(i), i) != null) {
					throw new IllegalArgumentException("Duplicate column '" + this.names.get(i) + "'");
				}
			}
			this.indexes = Map.copyOf(indexes);
		}

		/**
		 * Returns the names in table order.
		 * @return the names
		 */
		public List<String> names() {
			return this.names;
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return this == other || (other instanceof Columns columns && this.names.equals(columns.names));
		}

		@Override
		public int hashCode() {
			return Objects.hash(this.names);
		}

		@Override
		public String toString() {
			return this.names.toString();
		}

	}

}
