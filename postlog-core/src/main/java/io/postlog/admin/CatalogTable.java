package io.postlog.admin;

import java.util.List;
import java.util.Objects;

import io.postlog.TableId;

/**
 * A table as the catalog holds it now: its OID, its replica identity and its live columns
 * in column order. Immutable.
 *
 * @param table the table
 * @param relationOid the table's OID ({@code pg_class.oid})
 * @param replicaIdentity {@code relreplident}: {@code d} default (the primary key),
 * {@code i} an index, {@code f} full, {@code n} nothing
 * @param columns the live columns in column order (copied)
 */
public record CatalogTable(TableId table, int relationOid, char replicaIdentity, List<CatalogColumn> columns) {

	/**
	 * Creates a table description.
	 * @param table the table
	 * @param relationOid the OID
	 * @param replicaIdentity the replica identity
	 * @param columns the columns
	 */
	public CatalogTable {
		Objects.requireNonNull(table, "table");
		columns = List.copyOf(columns);
	}

	/**
	 * Returns whether updates and deletes of the table identify their row: its replica
	 * identity is {@code FULL}, or a primary key or replica identity index exists.
	 * @return {@code true} if the table has a usable replica identity
	 */
	public boolean hasReplicaIdentity() {
		return this.replicaIdentity == 'f' || this.columns.stream().anyMatch(CatalogColumn::key);
	}

}
