package io.postlog.schema;

import java.util.List;

import io.postlog.Lsn;
import io.postlog.TableSchema;
import org.jspecify.annotations.Nullable;

/**
 * A table's shape as one Relation message announced it, with what the stream does not
 * say: each column's attribute number (0 where the catalog could not tell) and type
 * modifier, and whether its nullability came from the catalog. Immutable.
 *
 * @param schema the shape
 * @param attnums each column's attribute number, 0 if unknown
 * @param typeModifiers each column's type modifier
 * @param nullabilityKnown whether each column's nullability came from the catalog
 * @param lsn the commit LSN of the transaction the message came in, or {@code null}
 * outside one
 */
record TrackedShape(TableSchema schema, int[] attnums, int[] typeModifiers, boolean[] nullabilityKnown,
		@Nullable Lsn lsn) {

	List<TableSchema.Column> columns() {
		return this.schema.columns();
	}

}
