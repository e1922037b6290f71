package io.postlog.spring.boot.autoconfigure;

/**
 * Settings of schema changes. Bound under {@code postlog.schema}, a group of
 * {@link PostlogProperties}; not thread-safe, bound once at start-up.
 */
public class PostlogSchemaProperties {

	/**
	 * Whether to install event triggers (ddl_command_end, sql_drop) that emit each DDL on
	 * a table, with the table's shape before and after it, as a transactional logical
	 * message, so that every schema change is classified exactly at the DDL's commit,
	 * also after a restart with any checkpoint store (PostgreSQL 14+, refused before;
	 * creating event triggers needs a superuser). Off, schema changes come from the
	 * stream's Relation messages alone.
	 */
	private boolean ddlEvents;

	public boolean isDdlEvents() {
		return this.ddlEvents;
	}

	public void setDdlEvents(boolean ddlEvents) {
		this.ddlEvents = ddlEvents;
	}

}
