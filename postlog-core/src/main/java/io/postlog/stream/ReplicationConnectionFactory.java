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
 * <p>
 * postlog asks for a few pgjdbc properties of its own through
 * {@link #connect(Properties)}: connect and login timeouts, so that a server that accepts
 * TCP but never answers cannot block a reconnect, and a socket factory that lets the
 * stream see the server close the connection and notice a silent one. A factory that
 * ignores them still works, but then a closed connection is noticed only when a status
 * update fails to send, and a hung connect is bounded only by the stall watchdog. They
 * include {@code logServerErrorDetail=false}: a factory that ignores it lets the server's
 * {@code DETAIL} (which can quote row values) into exception messages.
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
	 * Opens a fresh replication connection with postlog's driver properties added to the
	 * factory's own; by default they are ignored and {@link #connect()} is called.
	 * @param properties pgjdbc properties postlog asks for
	 * @return a new connection
	 * @throws SQLException if the connection fails
	 */
	default Connection connect(Properties properties) throws SQLException {
		return connect();
	}

	/**
	 * Returns a factory that opens connections to a JDBC URL through
	 * {@link DriverManager}, with {@code replication=database},
	 * {@code assumeMinServerVersion=10} and {@code preferQueryMode=simple} (the
	 * replication protocol accepts only simple queries),
	 * {@code logServerErrorDetail=false} (a server's {@code DETAIL} can quote row
	 * values), and postlog's properties. Other properties in the URL are kept.
	 * @param jdbcUrl the {@code jdbc:postgresql:} URL of the database to stream from
	 * @param user the user, or {@code null} to take it from the URL
	 * @param password the password, or {@code null}
	 * @return the factory
	 */
	static ReplicationConnectionFactory of(String jdbcUrl, @Nullable String user, @Nullable String password) {
		Objects.requireNonNull(jdbcUrl, "jdbcUrl");
		return new ReplicationConnectionFactory() {

			@Override
			public Connection connect() throws SQLException {
				return connect(new Properties());
			}

			@Override
			public Connection connect(Properties extra) throws SQLException {
				Properties properties = new Properties();
				properties.putAll(extra);
				if (user != null) {
					PGProperty.USER.set(properties, user);
				}
				if (password != null) {
					PGProperty.PASSWORD.set(properties, password);
				}
				PGProperty.REPLICATION.set(properties, "database");
				PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "10");
				PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
				// The server's DETAIL can quote row values; postlog's text never carries
				// them.
				PGProperty.LOG_SERVER_ERROR_DETAIL.set(properties, false);
				return DriverManager.getConnection(jdbcUrl, properties);
			}

		};
	}

}
