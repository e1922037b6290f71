package io.postlog.kafka;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.sql.DataSource;

import io.postlog.TableId;

/**
 * The replica-identity key columns of each relayed table, read from the catalog the first
 * time a table's change is relayed in a session: the primary key for replica identity
 * {@code default}, the chosen index for {@code index}, none for {@code full} and
 * {@code nothing} (such a table's records have no key). Columns come in table order, the
 * order in which the server sends a key image, so that the key of a row is the same bytes
 * whichever change carries it. Used on the delivery thread; the cache is cleared at each
 * session start, so a key changed while the relay was disconnected is seen.
 */
final class ReplicaIdentityKeys {

	private static final String QUERY = """
			SELECT a.attname
			FROM pg_class c
			JOIN pg_namespace n ON n.oid = c.relnamespace
			JOIN pg_index i ON i.indrelid = c.oid
				AND ((c.relreplident = 'd' AND i.indisprimary) OR (c.relreplident = 'i' AND i.indisreplident))
			JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY (i.indkey)
			WHERE n.nspname = ? AND c.relname = ?
			ORDER BY a.attnum""";

	private final DataSource dataSource;

	private final Map<TableId, List<String>> keys = new ConcurrentHashMap<>();

	ReplicaIdentityKeys(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	/**
	 * Returns a table's key columns.
	 * @param table the table
	 * @return the columns in table order, empty when the table has no usable key
	 * @throws KafkaRelayException if the catalog cannot be read
	 */
	List<String> columns(TableId table) {
		List<String> columns = this.keys.get(table);
		if (columns == null) {
			columns = read(table);
			this.keys.put(table, columns);
		}
		return columns;
	}

	void clear() {
		this.keys.clear();
	}

	private List<String> read(TableId table) {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(QUERY)) {
			statement.setString(1, table.schema());
			statement.setString(2, table.name());
			List<String> columns = new ArrayList<>();
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					columns.add(rows.getString(1));
				}
			}
			return List.copyOf(columns);
		}
		catch (SQLException ex) {
			throw new KafkaRelayException("Could not read the replica identity of table " + table, ex);
		}
	}

}
