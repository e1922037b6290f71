package io.postlog.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A table's row filter and column list, pushed into its group's publication (PostgreSQL
 * 15 and later). Bound under {@code postlog.filters.
 *
<table>
 * } for the default group and {@code postlog.groups.<name>.filters.
 *
<table>
 * } for the others, a schema-qualified table in brackets
 * ({@code postlog.filters[sales.orders].where}); not thread-safe, bound once at start-up.
 */
public class PostlogFilterProperties {

	/**
	 * Row filter: an SQL boolean expression over the table's columns; only rows for which
	 * it is true are streamed, snapshot and backfilled. Columns it reads must be in the
	 * table's replica identity.
	 */
	private @Nullable String where;

	/**
	 * Comma-separated list of the columns to stream, snapshot and backfill; it must hold
	 * the table's replica identity. Empty for every column.
	 */
	private List<String> columns = new ArrayList<>();

	public @Nullable String getWhere() {
		return this.where;
	}

	public void setWhere(@Nullable String where) {
		this.where = where;
	}

	public List<String> getColumns() {
		return this.columns;
	}

	public void setColumns(List<String> columns) {
		this.columns = columns;
	}

}
