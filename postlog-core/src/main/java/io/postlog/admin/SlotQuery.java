package io.postlog.admin;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * The one read of {@code pg_replication_slots}, with each column the server version lacks
 * selected as a typed {@code NULL}, so that every version maps through the same code:
 * {@code wal_status}, {@code safe_wal_size} (13+), {@code conflicting} (16+),
 * {@code inactive_since}, {@code invalidation_reason}, {@code failover}, {@code synced}
 * (17+).
 */
final class SlotQuery {

	static final int WAL_STATUS_VERSION = 130000;

	static final int CONFLICTING_VERSION = 160000;

	static final int FAILOVER_VERSION = 170000;

	private SlotQuery() {
	}

	/**
	 * Returns the {@code SELECT ... FROM pg_replication_slots} for a server version, to
	 * be completed with a {@code WHERE} or {@code ORDER BY} clause.
	 * @param serverVersion the {@code server_version_num}
	 * @return the SQL
	 */
	static String select(int serverVersion) {
		boolean walStatus = serverVersion >= WAL_STATUS_VERSION;
		boolean conflicting = serverVersion >= CONFLICTING_VERSION;
		boolean failover = serverVersion >= FAILOVER_VERSION;
		// Temporary slots arrived in PostgreSQL 10.
		String temporary = (serverVersion >= 100000) ? "temporary" : "false";
		return "SELECT slot_name, plugin, slot_type, database, " + temporary + ", active, active_pid,"
				+ " restart_lsn::text, confirmed_flush_lsn::text"
				+ (walStatus ? ", wal_status, safe_wal_size" : ", NULL::text, NULL::bigint")
				+ (conflicting ? ", conflicting" : ", NULL::boolean")
				+ (failover ? ", inactive_since, invalidation_reason, failover, synced"
						: ", NULL::timestamptz, NULL::text, NULL::boolean, NULL::boolean")
				+ " FROM pg_replication_slots";
	}

	static SlotInfo map(ResultSet row) throws SQLException {
		return new SlotInfo(row.getString(1), row.getString(2), row.getString(3), row.getString(4), row.getBoolean(5),
				row.getBoolean(6), nullableInt(row, 7), lsn(row.getString(8)), lsn(row.getString(9)), row.getString(10),
				nullableLong(row, 11), instant(row.getObject(13, OffsetDateTime.class)), nullableBoolean(row, 12),
				row.getString(14), nullableBoolean(row, 15), nullableBoolean(row, 16));
	}

	private static @Nullable Integer nullableInt(ResultSet row, int column) throws SQLException {
		int value = row.getInt(column);
		return row.wasNull() ? null : value;
	}

	private static @Nullable Long nullableLong(ResultSet row, int column) throws SQLException {
		long value = row.getLong(column);
		return row.wasNull() ? null : value;
	}

	private static @Nullable Boolean nullableBoolean(ResultSet row, int column) throws SQLException {
		boolean value = row.getBoolean(column);
		return row.wasNull() ? null : value;
	}

	private static @Nullable Instant instant(@Nullable OffsetDateTime time) {
		return (time != null) ? time.toInstant() : null;
	}

	private static @Nullable Lsn lsn(@Nullable String text) {
		return (text != null) ? Lsn.parse(text) : null;
	}

}
