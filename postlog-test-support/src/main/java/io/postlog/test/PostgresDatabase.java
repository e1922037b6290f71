package io.postlog.test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

import org.postgresql.PGProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A database of its own on an {@link EmbeddedPostgresServer}, reached as the superuser
 * {@code postgres} without a password.
 *
 * @param server the server holding the database
 * @param name the database name
 */
public record PostgresDatabase(EmbeddedPostgresServer server, String name) {

	private static final Logger logger = LoggerFactory.getLogger(PostgresDatabase.class);

	/**
	 * Returns the JDBC URL of this database.
	 * @return the URL
	 */
	public String jdbcUrl() {
		return this.server.jdbcUrl(this.name);
	}

	/**
	 * Returns the user tests connect as.
	 * @return {@code postgres}
	 */
	public String username() {
		return "postgres";
	}

	/**
	 * Opens an ordinary connection.
	 * @return a new connection the caller closes
	 * @throws SQLException if the connection fails
	 */
	public Connection connect() throws SQLException {
		return this.server.connect(this.name);
	}

	/**
	 * Opens a fresh logical replication connection ({@code replication=database}).
	 * @return a new connection the caller closes
	 * @throws SQLException if the connection fails
	 */
	public Connection connectReplication() throws SQLException {
		Properties properties = new Properties();
		PGProperty.USER.set(properties, username());
		PGProperty.REPLICATION.set(properties, "database");
		PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "9.4");
		PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
		return DriverManager.getConnection(jdbcUrl(), properties);
	}

	/**
	 * Runs SQL statements, each in its own transaction.
	 * @param statements the statements
	 */
	public void execute(String... statements) {
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			for (String sql : statements) {
				statement.execute(sql);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("SQL failed in database " + this.name + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Returns the server's {@code server_version_num}.
	 * @return the version number, for example {@code 170006}
	 */
	public int serverVersion() {
		return this.server.serverVersion();
	}

	/**
	 * Drops this database, its sessions and its inactive replication slots.
	 */
	public void drop() {
		if (!this.server.isRunning()) {
			return;
		}
		try (Connection connection = this.server.connect("postgres")) {
			try (var statement = connection.prepareStatement(
					"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()")) {
				statement.setString(1, this.name);
				statement.execute();
			}
			dropSlots(connection);
			try (Statement statement = connection.createStatement()) {
				statement.execute("DROP DATABASE IF EXISTS " + this.name);
			}
		}
		catch (SQLException ex) {
			logger.warn("Could not drop test database {}: {}", this.name, ex.getMessage());
		}
	}

	/**
	 * Drops the inactive replication slots of this database.
	 */
	void dropSlots() {
		if (!this.server.isRunning()) {
			return;
		}
		try (Connection connection = this.server.connect("postgres")) {
			dropSlots(connection);
		}
		catch (SQLException ex) {
			logger.warn("Could not drop the slots of test database {}: {}", this.name, ex.getMessage());
		}
	}

	private void dropSlots(Connection connection) throws SQLException {
		try (var statement = connection.prepareStatement(
				"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = ? AND NOT active")) {
			statement.setString(1, this.name);
			statement.execute();
		}
	}

}
