package io.postlog.admin;

import java.util.List;
import java.util.StringJoiner;

import org.jspecify.annotations.Nullable;

/**
 * What a publication publishes of one table: a row filter and a column list, both pushed
 * into the publication (PostgreSQL 15 and later), so that the server sends, and snapshots
 * and backfills read, only those rows and columns. Immutable.
 * <p>
 * The row filter is SQL text from the configuration. Before it is placed in a statement
 * it is checked to be one parenthesised expression (balanced parentheses outside quotes,
 * no {@code ;}, no comment, no dollar quoting, no backslash); the server checks the rest.
 *
 * @param where the row filter, an SQL boolean expression over the table's columns, or
 * {@code null} for every row
 * @param columns the columns to publish, in any order, or empty for every column
 */
public record TableFilter(@Nullable String where, List<String> columns) {

	/**
	 * Checks the column names; a blank row filter means every row. The row filter's shape
	 * is checked where it goes into a statement.
	 * @throws InvalidIdentifierException if a column name is invalid
	 */
	public TableFilter {
		where = (where == null || where.isBlank()) ? null : where.strip();
		columns = List.copyOf(columns);
		for (String column : columns) {
			PgIdentifiers.requireName("column", column);
		}
	}

	/**
	 * Returns whether it publishes every row and every column.
	 * @return {@code true} when there is neither a row filter nor a column list
	 */
	public boolean isEmpty() {
		return this.where == null && this.columns.isEmpty();
	}

	/**
	 * Returns the publication clause for a table: {@code "t" (a, b) WHERE (…)}.
	 * @param quotedTable the table, quoted
	 * @return the clause
	 */
	String clause(String quotedTable) {
		StringBuilder clause = new StringBuilder(quotedTable);
		if (!this.columns.isEmpty()) {
			StringJoiner list = new StringJoiner(", ", " (", ")");
			this.columns.forEach((column) -> list.add(PgIdentifiers.quote("column", column)));
			clause.append(list);
		}
		if (this.where != null) {
			clause.append(" WHERE (").append(this.where).append(")");
		}
		return clause.toString();
	}

	@Override
	public String toString() {
		if (isEmpty()) {
			return "every row and column";
		}
		String rows = (this.where != null) ? "where (" + this.where + ")" : "every row";
		String cols = this.columns.isEmpty() ? "every column" : "columns " + this.columns;
		return rows + ", " + cols;
	}

}
