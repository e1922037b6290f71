package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import io.postlog.admin.PgErrors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The short read-only transaction a backfill read runs in: {@code REPEATABLE READ}, with
 * the settings that make values come in the stream's formats, begun together with the
 * query of what its snapshot sees. Stateless; the connection is the caller's, in
 * autocommit mode.
 */
final class ReadTransaction {

	private static final Logger logger = LoggerFactory.getLogger(ReadTransaction.class);

	private static final String BEGIN = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY";

	/** A read's settings: the values it decodes are in the stream's formats. */
	private static final String SETTINGS = "SET LOCAL application_name = 'postlog-backfill';"
			+ " SET LOCAL statement_timeout = 0; SET LOCAL standard_conforming_strings = on;"
			+ " SET LOCAL DateStyle = 'ISO, MDY'; SET LOCAL IntervalStyle = 'postgres';"
			+ " SET LOCAL extra_float_digits = 3; SET LOCAL bytea_output = 'hex'; SET LOCAL lc_monetary = 'C';"
			+ " SET LOCAL TimeZone = 'UTC'";

	private ReadTransaction() {
	}

	/**
	 * Returns whether a snapshot sees every one of the given transactions.
	 */
	static boolean seesAll(ReadVisibility visibility, long[] delivered) {
		for (long xid : delivered) {
			if (!visibility.sees(xid)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Begins a read's transaction and returns what its snapshot sees, in one round trip
	 * (pgjdbc sends the statements of one string together, with one Sync).
	 * @return the visibility, or {@code null} when a transaction the snapshot holds in
	 * progress has committed already
	 */
	static @Nullable ReadVisibility beginAndSee(Connection connection) throws SQLException {
		connection.setAutoCommit(true);
		try (Statement statement = connection.createStatement()) {
			statement.execute(BEGIN + "; " + SETTINGS + "; SELECT txid_current_snapshot()::text, EXISTS (SELECT 1 FROM"
					+ " txid_snapshot_xip(txid_current_snapshot()) x WHERE txid_status(x) = 'committed')");
			while (statement.getResultSet() == null) {
				if (!statement.getMoreResults() && statement.getUpdateCount() == -1) {
					throw new SQLException("The read's visibility query returned no row");
				}
			}
			try (ResultSet row = statement.getResultSet()) {
				row.next();
				return row.getBoolean(2) ? null : ReadVisibility.parse(row.getString(1));
			}
		}
	}

	/** Begins a read's transaction with its settings. */
	static void begin(Connection connection) throws SQLException {
		connection.setAutoCommit(true);
		try (Statement statement = connection.createStatement()) {
			statement.execute(BEGIN + "; " + SETTINGS);
		}
	}

	/**
	 * Commits, then runs a statement (if any) in an implicit transaction of its own, in
	 * the same round trip.
	 */
	static void commit(Connection connection, @Nullable String then) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute((then != null) ? "COMMIT; " + then : "COMMIT");
		}
	}

	/** Rolls back, logging a failure: the connection is likely gone. */
	static void rollback(Connection connection) {
		try (Statement statement = connection.createStatement()) {
			statement.execute("ROLLBACK");
		}
		catch (SQLException ex) {
			// Safe to leave: the connection is likely gone, and its owner finds out on
			// the next use.
			logger.debug("Rolling back a backfill read failed ({})", PgErrors.describe(ex));
		}
	}

}
