package io.postlog.spring;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.postlog.TableId;
import org.jspecify.annotations.Nullable;

/**
 * Reads what the start-up checks need from PostgreSQL's catalog: a table's columns,
 * owner, replica identity and key, and a publication's tables and operations. Names are
 * passed as parameters, never into SQL text. Not thread-safe: one per check, on one
 * connection.
 */
final class TableCatalog {

	private static final String TABLE = "SELECT c.oid, c.relreplident, pg_get_userbyid(c.relowner), "
			+ "pg_has_role(current_user, c.relowner, 'USAGE'), current_user FROM pg_class c "
			+ "JOIN pg_namespace n ON n.oid = c.relnamespace "
			+ "WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p')";

	private static final String COLUMNS = "SELECT attname, attnotnull FROM pg_attribute "
			+ "WHERE attrelid = ? AND attnum > 0 AND NOT attisdropped ORDER BY attnum";

	private static final String KEY = "SELECT a.attname FROM pg_index i "
			+ "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey) "
			+ "WHERE i.indrelid = ? AND (CASE WHEN ? = 'i' THEN i.indisreplident ELSE i.indisprimary END)";

	private static final String PUBLICATION = "SELECT puballtables, pubupdate, pubdelete FROM pg_publication "
			+ "WHERE pubname = ?";

	private static final String PUBLICATION_TABLES = "SELECT schemaname, tablename FROM pg_publication_tables "
			+ "WHERE pubname = ?";

	private final Connection connection;

	TableCatalog(Connection connection) {
		this.connection = connection;
	}

	@Nullable Table table(TableId id) throws SQLException {
		long oid;
		char identity;
		String owner;
		boolean owned;
		String role;
		try (PreparedStatement statement = this.connection.prepareStatement(TABLE)) {
			statement.setString(1, id.schema());
			statement.setString(2, id.name());
			try (ResultSet row = statement.executeQuery()) {
				if (!row.next()) {
					return null;
				}
				oid = row.getLong(1);
				identity = row.getString(2).charAt(0);
				owner = row.getString(3);
				owned = row.getBoolean(4);
				role = row.getString(5);
			}
		}
		Map<String, Boolean> columns = new LinkedHashMap<>();
		try (PreparedStatement statement = this.connection.prepareStatement(COLUMNS)) {
			statement.setLong(1, oid);
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					columns.put(row.getString(1), row.getBoolean(2));
				}
			}
		}
		List<String> key = new ArrayList<>();
		if (identity == 'd' || identity == 'i') {
			try (PreparedStatement statement = this.connection.prepareStatement(KEY)) {
				statement.setLong(1, oid);
				statement.setString(2, String.valueOf(identity));
				try (ResultSet row = statement.executeQuery()) {
					while (row.next()) {
						key.add(row.getString(1));
					}
				}
			}
		}
		return new Table(id, owner, owned, role, identity, columns, List.copyOf(key));
	}

	@Nullable Publication publication(String name) throws SQLException {
		boolean allTables;
		boolean updates;
		try (PreparedStatement statement = this.connection.prepareStatement(PUBLICATION)) {
			statement.setString(1, name);
			try (ResultSet row = statement.executeQuery()) {
				if (!row.next()) {
					return null;
				}
				allTables = row.getBoolean(1);
				updates = row.getBoolean(2) || row.getBoolean(3);
			}
		}
		Set<TableId> tables = new HashSet<>();
		try (PreparedStatement statement = this.connection.prepareStatement(PUBLICATION_TABLES)) {
			statement.setString(1, name);
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					tables.add(new TableId(row.getString(1), row.getString(2)));
				}
			}
		}
		return new Publication(allTables, updates, Set.copyOf(tables));
	}

	/**
	 * A table as the catalog describes it.
	 *
	 * @param id the table
	 * @param owner the owning role
	 * @param owned whether the current role is the owner or a member of it
	 * @param role the current role
	 * @param identity {@code relreplident}: {@code d} default (primary key), {@code i}
	 * index, {@code f} full, {@code n} nothing
	 * @param columns column names in table order, each with whether it is
	 * {@code NOT NULL}
	 * @param key the replica identity's columns (empty for full, nothing, or a default
	 * identity without a primary key)
	 */
	record Table(TableId id, String owner, boolean owned, String role, char identity, Map<String, Boolean> columns,
			List<String> key) {

		boolean fullIdentity() {
			return this.identity == 'f';
		}

		boolean hasUsableIdentity() {
			return this.identity == 'f' || !this.key.isEmpty();
		}

		String identityDescription() {
			return switch (this.identity) {
				case 'n' -> "REPLICA IDENTITY NOTHING";
				case 'i' -> "REPLICA IDENTITY USING INDEX, but the index is gone";
				default -> "no primary key (REPLICA IDENTITY DEFAULT)";
			};
		}

	}

	/**
	 * A publication.
	 *
	 * @param allTables whether it is {@code FOR ALL TABLES}
	 * @param updatesOrDeletes whether it publishes updates or deletes
	 * @param tables the tables it publishes now
	 */
	record Publication(boolean allTables, boolean updatesOrDeletes, Set<TableId> tables) {

		boolean publishes(TableId table) {
			return this.allTables || this.tables.contains(table);
		}

	}

}
