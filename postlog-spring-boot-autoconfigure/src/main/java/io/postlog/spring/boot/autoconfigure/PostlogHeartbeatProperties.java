package io.postlog.spring.boot.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Heartbeat settings. Bound under {@code postlog.heartbeat}, a group of
 * {@link PostlogProperties}; not thread-safe, bound once at start-up.
 */
public class PostlogHeartbeatProperties {

	/**
	 * Interval between heartbeat messages written to the database so that an idle
	 * database does not pin WAL; unset for none.
	 */
	private @Nullable Duration interval;

	/**
	 * How long a heartbeat may take to come back through the stream before health is
	 * DOWN; defaults to five times the interval.
	 */
	private @Nullable Duration timeout;

	/**
	 * Table whose row for the slot is updated as the heartbeat before PostgreSQL 14, as
	 * schema.table or table (public); created if missing and published with the
	 * listeners' tables.
	 */
	private String table = "postlog_heartbeat";

	public @Nullable Duration getInterval() {
		return this.interval;
	}

	public void setInterval(@Nullable Duration interval) {
		this.interval = interval;
	}

	public @Nullable Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(@Nullable Duration timeout) {
		this.timeout = timeout;
	}

	public String getTable() {
		return this.table;
	}

	public void setTable(String table) {
		this.table = table;
	}

}
