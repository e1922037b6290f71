package io.postlog.consumer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

import javax.sql.DataSource;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGProperty;

/**
 * Ordinary (non-replication) connections for set-up, slot checks and catalog look-ups. A
 * connection the caller supplied is shared under a lock and never closed; a data source's
 * connections are borrowed for one piece of work and closed (returned to the pool);
 * connections opened from a JDBC URL belong to the consumer and are closed after use.
 * Thread-safe.
 */
final class AdminConnections {

	private final Source source;

	private final boolean closeAfterUse;

	private AdminConnections(Source source, boolean closeAfterUse) {
		this.source = source;
		this.closeAfterUse = closeAfterUse;
	}

	static AdminConnections shared(Connection connection) {
		return new AdminConnections(() -> connection, false);
	}

	static AdminConnections of(DataSource dataSource) {
		return new AdminConnections(dataSource::getConnection, true);
	}

	static AdminConnections of(String jdbcUrl, @Nullable String user, @Nullable String password) {
		Properties properties = new Properties();
		if (user != null) {
			properties.setProperty("user", user);
		}
		if (password != null) {
			properties.setProperty("password", password);
		}
		// The server's DETAIL can quote row values; postlog's text never carries them.
		PGProperty.LOG_SERVER_ERROR_DETAIL.set(properties, false);
		return new AdminConnections(() -> DriverManager.getConnection(jdbcUrl, properties), true);
	}

	/**
	 * Runs work on an admin connection.
	 * @param <T> the result type
	 * @param what what the work does, for the error message
	 * @param work the work
	 * @return its result
	 * @throws PostlogException if the work fails with an {@link SQLException} (kept as
	 * the cause, so its SQLState is available)
	 */
	<T> T apply(String what, Work<T> work) {
		try {
			if (!this.closeAfterUse) {
				synchronized (this) {
					return work.apply(this.source.get());
				}
			}
			try (Connection connection = this.source.get()) {
				return work.apply(connection);
			}
		}
		catch (SQLException ex) {
			throw new PostlogException(what + " failed: " + ex.getMessage(), ex);
		}
	}

	@FunctionalInterface
	interface Work<T> {

		T apply(Connection connection) throws SQLException;

	}

	@FunctionalInterface
	private interface Source {

		Connection get() throws SQLException;

	}

}
