package io.postlog.kafka;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

/**
 * The name of the database the relay reads, asked of the server the first time a record
 * needs it (Debezium's {@code source.db}) and kept: a slot belongs to one database for
 * its life. Thread-safe.
 */
final class DatabaseName {

	private final DataSource dataSource;

	private volatile @Nullable String name;

	DatabaseName(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	/**
	 * Returns the database's name.
	 * @return the name
	 * @throws KafkaRelayException if the server cannot be asked
	 */
	String get() {
		String name = this.name;
		if (name == null) {
			name = read();
			this.name = name;
		}
		return name;
	}

	private String read() {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT current_database()")) {
			rows.next();
			return rows.getString(1);
		}
		catch (SQLException ex) {
			throw new KafkaRelayException("Could not read the name of the relayed database", ex);
		}
	}

}
