package io.postlog.snapshot;

import java.util.List;

import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.types.ValueDecoder;
import org.jspecify.annotations.Nullable;

/**
 * How one table is read: its columns as of the snapshot, their decoders, and its chunks.
 * Immutable once built; shared by the reader threads.
 */
final class TablePlan {

	final TableId table;

	final long oid;

	/** Partitioned tables are read through the parent, so rows name their partition. */
	final boolean partitioned;

	final List<String> columnNames;

	final int[] typeOids;

	final ValueDecoder[] decoders;

	final Row.Columns columns;

	final @Nullable String rowFilter;

	final long estimatedRows;

	final List<Chunk> chunks;

	TablePlan(TableId table, long oid, boolean partitioned, List<String> columnNames, int[] typeOids,
			ValueDecoder[] decoders, @Nullable String rowFilter, long estimatedRows, List<Chunk> chunks) {
		this.table = table;
		this.oid = oid;
		this.partitioned = partitioned;
		this.columnNames = List.copyOf(columnNames);
		this.typeOids = typeOids;
		this.decoders = decoders;
		this.columns = Row.columns(columnNames);
		this.rowFilter = rowFilter;
		this.estimatedRows = estimatedRows;
		this.chunks = List.copyOf(chunks);
	}

	/**
	 * The fields each copied row starts with before the table's columns: {@code ctid},
	 * and {@code tableoid} first for a partitioned table.
	 */
	int systemFields() {
		return this.partitioned ? 2 : 1;
	}

	/**
	 * Returns the {@code COPY} of one chunk. Built from catalog names (quoted), the
	 * server's own row filter text and numbers only.
	 */
	String copySql(Chunk chunk, boolean binary) {
		StringBuilder sql = new StringBuilder("COPY (SELECT ");
		sql.append(this.partitioned ? "tableoid, ctid" : "ctid");
		for (String column : this.columnNames) {
			sql.append(", ").append(PgIdentifiers.quote("column", column));
		}
		sql.append(" FROM ").append(PgIdentifiers.quote(this.table));
		String where = chunk.where();
		if (this.rowFilter != null && where != null) {
			sql.append(" WHERE (").append(this.rowFilter).append(") AND ").append(where);
		}
		else if (this.rowFilter != null) {
			sql.append(" WHERE (").append(this.rowFilter).append(")");
		}
		else if (where != null) {
			sql.append(" WHERE ").append(where);
		}
		sql.append(") TO STDOUT (FORMAT ").append(binary ? "binary" : "text").append(")");
		return sql.toString();
	}

	String describe(Chunk chunk) {
		return "chunk " + (chunk.index() + 1) + " of " + this.chunks.size() + " (" + chunk.description() + ")";
	}

}
