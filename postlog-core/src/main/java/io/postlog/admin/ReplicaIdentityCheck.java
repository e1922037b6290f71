package io.postlog.admin;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.postlog.PostlogException;
import io.postlog.TableId;

/**
 * Finds tables that are (or are about to be) published for updates or deletes without a
 * usable replica identity: {@code REPLICA IDENTITY FULL}, {@code DEFAULT} with a primary
 * key, or {@code USING INDEX} with that index present. The server refuses {@code UPDATE}
 * and {@code DELETE} on such a table while a publication that publishes them includes it.
 * A table postlog would publish itself (a publication it creates, or a table {@code sync}
 * adds) is refused; one an existing publication holds already is a warning naming it, and
 * streams: postlog changes nothing there.
 */
final class ReplicaIdentityCheck {

	private static final String UNUSABLE = " WHERE c.relkind IN ('r', 'p') AND NOT (c.relreplident = 'f'"
			+ " OR (c.relreplident = 'd' AND EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary))"
			+ " OR (c.relreplident = 'i' AND EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisreplident)))";

	private static final String AMONG = "SELECT n.nspname, c.relname FROM pg_class c"
			+ " JOIN pg_namespace n ON n.oid = c.relnamespace"
			+ " JOIN unnest(?::text[], ?::text[]) AS t(schema_name, table_name)"
			+ " ON n.nspname = t.schema_name AND c.relname = t.table_name" + UNUSABLE + " ORDER BY 1, 2";

	// What a new FOR ALL TABLES publication would cover: permanent user tables.
	private static final String ALL_TABLES = "SELECT n.nspname, c.relname FROM pg_class c"
			+ " JOIN pg_namespace n ON n.oid = c.relnamespace" + UNUSABLE + " AND c.relkind = 'r'"
			+ " AND c.relpersistence = 'p' AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
			+ " AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%' ORDER BY 1, 2";

	private final ReplicationAdmin admin;

	private final Connection connection;

	ReplicaIdentityCheck(ReplicationAdmin admin, Connection connection) {
		this.admin = admin;
		this.connection = connection;
	}

	Optional<StartupFinding> run(StartupCheckRequest request, boolean publicationExists) {
		try {
			if (!publicationExists) {
				return refused(request,
						request.tables().isEmpty() ? query(ALL_TABLES, List.of()) : among(request.tables()));
			}
			if (!publishesUpdatesOrDeletes(request.publicationName())) {
				return Optional.empty();
			}
			// What the publication holds already, postlog does not change: PostgreSQL
			// refuses UPDATE and DELETE on those tables itself, and their inserts stream.
			// Only a table postlog would add is postlog's to refuse.
			Set<TableId> published = new LinkedHashSet<>(this.admin.publicationTables(request.publicationName()));
			if (request.publicationMode() == PublicationMode.SYNC) {
				List<TableId> added = request.tables().stream().filter((table) -> !published.contains(table)).toList();
				Optional<StartupFinding> refused = refused(request, among(added));
				if (refused.isPresent()) {
					return refused;
				}
			}
			List<TableId> keyless = among(List.copyOf(published));
			if (keyless.isEmpty()) {
				return Optional.empty();
			}
			return Optional.of(StartupFinding.warning(StartupFinding.Check.REPLICA_IDENTITY,
					"Publication '" + request.publicationName() + "' publishes updates or deletes of tables without "
							+ "a usable replica identity: " + keyless + ". PostgreSQL refuses UPDATE and DELETE on "
							+ "them while they are published; postlog streams their inserts and truncates",
					"If they are insert-only, nothing needs doing; otherwise give each a primary key, or run "
							+ "ALTER TABLE <table> REPLICA IDENTITY FULL (old rows are then logged whole), or publish "
							+ "only inserts (ALTER PUBLICATION ... SET (publish = 'insert, truncate'))"));
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read the replica identity of the published tables", ex);
		}
	}

	private static Optional<StartupFinding> refused(StartupCheckRequest request, List<TableId> unusable) {
		if (unusable.isEmpty()) {
			return Optional.empty();
		}
		return Optional.of(StartupFinding.failure(StartupFinding.Check.REPLICA_IDENTITY,
				new ReplicaIdentityException(request.publicationName(), unusable),
				"Give each table a primary key, or run ALTER TABLE <table> REPLICA IDENTITY FULL (old rows are "
						+ "then logged whole); for insert-only tables, publish only inserts (CREATE PUBLICATION "
						+ "... WITH (publish = 'insert, truncate')) and use postlog.publication.mode=existing"));
	}

	private boolean publishesUpdatesOrDeletes(String publicationName) throws SQLException {
		try (PreparedStatement statement = this.connection
			.prepareStatement("SELECT pubupdate OR pubdelete FROM pg_publication WHERE pubname = ?")) {
			statement.setString(1, publicationName);
			try (ResultSet row = statement.executeQuery()) {
				return row.next() && row.getBoolean(1);
			}
		}
	}

	private List<TableId> among(List<TableId> tables) throws SQLException {
		return tables.isEmpty() ? List.of() : query(AMONG, tables);
	}

	private List<TableId> query(String sql, List<TableId> tables) throws SQLException {
		List<TableId> found = new ArrayList<>();
		try (PreparedStatement statement = this.connection.prepareStatement(sql)) {
			if (!tables.isEmpty()) {
				Array schemas = this.connection.createArrayOf("text",
						tables.stream().map(TableId::schema).toArray(String[]::new));
				Array names = this.connection.createArrayOf("text",
						tables.stream().map(TableId::name).toArray(String[]::new));
				statement.setArray(1, schemas);
				statement.setArray(2, names);
			}
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					found.add(new TableId(row.getString(1), row.getString(2)));
				}
			}
		}
		return found;
	}

}
