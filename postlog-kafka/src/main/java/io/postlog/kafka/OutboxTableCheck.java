package io.postlog.kafka;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;

import javax.sql.DataSource;

import io.postlog.TableId;

/**
 * Checks at start that the outbox table exists and has the columns the relay reads.
 */
final class OutboxTableCheck {

	private OutboxTableCheck() {
	}

	static void require(DataSource dataSource, TableId table) {
		Set<String> columns = new HashSet<>();
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement("SELECT a.attname FROM pg_attribute a "
						+ "JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
						+ "WHERE n.nspname = ? AND c.relname = ? AND a.attnum > 0 AND NOT a.attisdropped")) {
			statement.setString(1, table.schema());
			statement.setString(2, table.name());
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					columns.add(rows.getString(1));
				}
			}
		}
		catch (SQLException ex) {
			throw new KafkaRelayException("Could not read the columns of outbox table " + table, ex);
		}
		if (columns.isEmpty()) {
			throw new KafkaRelayException("The outbox table " + table + " does not exist (postlog.kafka.outbox.table)",
					null);
		}
		for (String required : new String[] { OutboxRecords.AGGREGATE_TYPE, OutboxRecords.PAYLOAD }) {
			if (!columns.contains(required)) {
				throw new KafkaRelayException("The outbox table " + table + " has no column " + required
						+ "; it needs aggregatetype (the topic) and payload (the value), and may have aggregateid "
						+ "(the key), type and id (headers)", null);
			}
		}
	}

}
