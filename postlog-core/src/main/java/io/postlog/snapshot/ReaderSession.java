package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reader connection inside the imported snapshot: a read-only repeatable-read
 * transaction whose first statement is {@code SET TRANSACTION SNAPSHOT}, with the
 * settings text output depends on pinned as the replication connection pins them, and no
 * statement or idle timeout to end a long read. Every setting is {@code SET LOCAL}, so a
 * pooled connection goes back as it came. Used by one thread at a time.
 */
final class ReaderSession implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(ReaderSession.class);

	private static final int IDLE_IN_TRANSACTION_TIMEOUT_VERSION = 90600;

	final Connection connection;

	final CopyManager copy;

	private volatile boolean closed;

	private ReaderSession(Connection connection, CopyManager copy) {
		this.connection = connection;
		this.copy = copy;
	}

	/**
	 * Opens a session on a connection, which it owns from then on (closed if the import
	 * fails).
	 */
	static ReaderSession open(Connection connection, String snapshotName, int serverVersion) throws SQLException {
		try {
			connection.setAutoCommit(true);
			CopyManager copy = connection.unwrap(PGConnection.class).getCopyAPI();
			try (Statement statement = connection.createStatement()) {
				statement.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
				statement
					.execute("SET TRANSACTION SNAPSHOT '" + ExportedSnapshot.requireSnapshotName(snapshotName) + "'");
				statement.execute("SET LOCAL application_name = 'postlog-snapshot'");
				statement.execute("SET LOCAL statement_timeout = 0");
				if (serverVersion >= IDLE_IN_TRANSACTION_TIMEOUT_VERSION) {
					statement.execute("SET LOCAL idle_in_transaction_session_timeout = 0");
				}
				statement.execute("SET LOCAL DateStyle = 'ISO, MDY'");
				statement.execute("SET LOCAL IntervalStyle = 'postgres'");
				statement.execute("SET LOCAL extra_float_digits = 3");
				statement.execute("SET LOCAL bytea_output = 'hex'");
				statement.execute("SET LOCAL lc_monetary = 'C'");
				statement.execute("SET LOCAL TimeZone = 'UTC'");
			}
			return new ReaderSession(connection, copy);
		}
		catch (SQLException | RuntimeException ex) {
			abort(connection);
			throw ex;
		}
	}

	/** Ends the transaction and closes the connection; the snapshot was read. */
	void commitAndClose() throws SQLException {
		if (this.closed) {
			return;
		}
		this.closed = true;
		try (Statement statement = this.connection.createStatement()) {
			statement.execute("COMMIT");
		}
		finally {
			this.connection.close();
		}
	}

	/**
	 * Drops the connection at once, whatever it is doing (a {@code COPY} in the middle of
	 * its data included): the server rolls the transaction back. Safe from another thread
	 * than the one reading.
	 */
	void abort() {
		this.closed = true;
		abort(this.connection);
	}

	@Override
	public void close() {
		if (!this.closed) {
			abort();
		}
	}

	private static void abort(Connection connection) {
		try {
			connection.abort(Runnable::run);
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("Aborting a snapshot reader connection failed", ex);
			try {
				connection.close();
			}
			catch (SQLException closeFailure) {
				logger.debug("Closing a snapshot reader connection failed", closeFailure);
			}
		}
	}

}
