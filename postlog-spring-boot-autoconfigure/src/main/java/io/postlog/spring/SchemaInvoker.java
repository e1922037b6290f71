package io.postlog.spring;

import java.util.Set;

import io.postlog.SchemaChange;
import io.postlog.TableId;

/**
 * Calls a {@link PgSchemaListener} method with the schema changes of its tables.
 * Thread-safe.
 */
final class SchemaInvoker {

	private final ListenerMethod method;

	private final Set<TableId> tables;

	SchemaInvoker(ListenerMethod method, Set<TableId> tables) {
		this.method = method;
		this.tables = tables;
	}

	ListenerMethod method() {
		return this.method;
	}

	void invoke(SchemaChange change) {
		if (concerns(this.tables, change)) {
			this.method.invoke(change, change.commitLsn(), null, null, change);
		}
	}

	/**
	 * Whether a schema change is of one of the tables, by its name before or after.
	 * @param tables the tables, empty for every table
	 * @param change the schema change
	 * @return whether it concerns them
	 */
	static boolean concerns(Set<TableId> tables, SchemaChange change) {
		return tables.isEmpty() || tables.contains(change.table())
				|| (change.before() != null && tables.contains(change.before().table()));
	}

}
