package io.postlog.stream;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;

import org.jspecify.annotations.Nullable;
import org.postgresql.PGProperty;

/**
 * Opens the connection a logical replication stream runs on. Every call must return a
 * fresh, un-pooled pgjdbc connection opened with {@code replication=database}; the caller
 * owns and closes it.
 */
@FunctionalInterface
public interface ReplicationConnectionFactory {

	/**
	 * Opens a fresh replication connection.
	 * @return a new connection
	 * @throws SQLException if the connection fails
	 */
	Connection connect() throws SQLException;

	/**
	 * Returns a factory that opens connections to a JDBC URL through
	 * {@link DriverManager}, with {@code replication=database},
	 * {@code assumeMinServerVersion=10} and {@code preferQueryMode=simple} (the
	 * replication protocol accepts only simple queries). Other properties in the URL are
	 * kept.
	 * @param jdbcUrl the {@code jdbc:postgresql:} URL of the database to stream from
	 * @param user the user, or {@code null} to take it from the URL
	 * @param password the password, or {@code null}
	 * @return the factory
	 */
	static ReplicationConnectionFactory of(String jdbcUrl, @Nullable String user, @Nullable String password) {
		Objects.requireNonNull(jdbcUrl, "jdbcUrl");
		return () -> {
			Properties properties = new Properties();
			if (user != null) {
				PGProperty.USER.set(properties, user);
			}
			if (password != null) {
				PGProperty.PASSWORD.set(properties, password);
			}
			PGProperty.REPLICATION.set(properties, "database");
			PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "10");
			PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
			return DriverManager.getConnection(jdbcUrl, properties);
		};
	}

}
