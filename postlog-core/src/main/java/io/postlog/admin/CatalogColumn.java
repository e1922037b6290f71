package io.postlog.admin;

import java.util.Objects;

/**
 * A live column of a table as the catalog holds it now ({@code pg_attribute}). Immutable.
 *
 * @param name the column name
 * @param typeOid the OID of its type ({@code atttypid})
 * @param typeModifier its type modifier ({@code atttypmod}, -1 for none)
 * @param key whether it belongs to the table's replica identity (every column under
 * {@code REPLICA IDENTITY FULL}, none under {@code NOTHING})
 * @param varlena whether its type is of variable length ({@code typlen = -1}), the only
 * kind whose values the server may store out of line (TOAST) and leave unsent when an
 * update does not change them
 * @param generated whether it is a generated column ({@code attgenerated}, PostgreSQL 12
 * and later), which pgoutput does not publish
 */
public record CatalogColumn(String name, int typeOid, int typeModifier, boolean key, boolean varlena,
		boolean generated) {

	/**
	 * Creates a column.
	 * @param name the name
	 * @param typeOid the type OID
	 * @param typeModifier the type modifier
	 * @param key whether it is a replica identity column
	 * @param varlena whether its type is of variable length
	 * @param generated whether it is generated
	 */
	public CatalogColumn {
		Objects.requireNonNull(name, "name");
	}

}
