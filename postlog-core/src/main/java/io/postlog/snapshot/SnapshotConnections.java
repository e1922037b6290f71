package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.postgresql.PGProperty;

/**
 * Opens the ordinary (non-replication) connections a {@link SnapshotReader} reads with,
 * one per reader, each closed by the reader when it is done (returned to its pool, for a
 * pooled data source). A reader changes nothing on the session that outlives its
 * transaction: its settings are {@code SET LOCAL}. Must be callable from any thread.
 */
@FunctionalInterface
public interface SnapshotConnections {

	/**
	 * Opens a connection to the database the snapshot was exported from.
	 * @return a connection the caller closes
	 * @throws SQLException if it cannot be opened
	 */
	Connection connect() throws SQLException;

	/**
	 * Returns connections borrowed from a data source.
	 * @param dataSource the data source
	 * @return the factory
	 */
	static SnapshotConnections of(DataSource dataSource) {
		Objects.requireNonNull(dataSource, "dataSource");
		return dataSource::getConnection;
	}

	/**
	 * Returns connections opened to a JDBC URL through {@link DriverManager}, with
	 * {@code logServerErrorDetail=false}: a server's {@code DETAIL} can quote row values.
	 * @param jdbcUrl the {@code jdbc:postgresql:} URL
	 * @param user the user, or {@code null} to take it from the URL
	 * @param password the password, or {@code null}
	 * @return the factory
	 */
	static SnapshotConnections of(String jdbcUrl, @Nullable String user, @Nullable String password) {
		Objects.requireNonNull(jdbcUrl, "jdbcUrl");
		return () -> {
			Properties properties = new Properties();
			if (user != null) {
				properties.setProperty("user", user);
			}
			if (password != null) {
				properties.setProperty("password", password);
			}
			// The server's DETAIL can quote row values; postlog's text never carries
			// them.
			PGProperty.LOG_SERVER_ERROR_DETAIL.set(properties, false);
			return DriverManager.getConnection(jdbcUrl, properties);
		};
	}

}
