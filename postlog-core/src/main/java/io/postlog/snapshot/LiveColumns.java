package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import io.postlog.pgoutput.PgOutputMessage;

/**
 * Compares a table's live columns with those a backfill planned it with, so that a chunk
 * is planned again only when a DDL changed them: one catalog read. Stateless.
 */
final class LiveColumns {

	private LiveColumns() {
	}

	/** Whether a table's live attributes are exactly the columns it was planned with. */
	static boolean same(Connection connection, long oid, List<PgOutputMessage.Column> columns) throws SQLException {
		int seen = 0;
		try (PreparedStatement statement = connection.prepareStatement("SELECT a.attname, a.atttypid, a.atttypmod"
				+ " FROM pg_catalog.pg_attribute a WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped"
				+ " ORDER BY a.attnum")) {
			statement.setLong(1, oid);
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					if (seen >= columns.size()) {
						return false;
					}
					PgOutputMessage.Column column = columns.get(seen++);
					if (!column.name().equals(row.getString(1)) || column.typeOid() != (int) row.getLong(2)
							|| column.typeModifier() != row.getInt(3)) {
						return false;
					}
				}
			}
		}
		return seen == columns.size();
	}

}
