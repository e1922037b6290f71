package io.postlog.admin;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.postlog.PostlogException;
import io.postlog.TableId;

/**
 * Catalog facts about tables, over any JDBC connection to the database to stream from:
 * their columns, types and replica identity as the catalog holds them now, the columns
 * whose values cannot be sent in binary, replication origins, and pglogical's replication
 * sets. Names are bound as parameters, never pasted into SQL. The connection is borrowed,
 * never closed; like the connection, an instance is not thread-safe. Errors are
 * {@link PostlogException}s with the {@link SQLException} as cause.
 */
public final class TableCatalog {

	/** Columns of tables chosen by {@code :where}, in table and column order. */
	private static final String COLUMNS = """
			SELECT c.oid, n.nspname, c.relname, c.relreplident, a.attname, a.atttypid, a.atttypmod,
			       t.typlen = -1,
			       CASE c.relreplident
			         WHEN 'f' THEN true
			         WHEN 'n' THEN false
			         ELSE EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid
			                      AND CASE c.relreplident WHEN 'd' THEN i.indisprimary ELSE i.indisreplident END
			                      AND a.attnum = ANY (i.indkey))
			       END,
			       :generated
			FROM pg_class c
			JOIN pg_namespace n ON n.oid = c.relnamespace
			LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
			LEFT JOIN pg_type t ON t.oid = a.atttypid
			WHERE :where
			ORDER BY n.nspname, c.relname, a.attnum
			""";

	private static final String BY_NAME = "(n.nspname, c.relname) IN (SELECT * FROM unnest(?::text[], ?::text[]))"
			+ " AND c.relkind IN ('r', 'p')";

	/**
	 * For each column, the types inside its type, depth first: a domain's base, an
	 * array's element, a composite's fields, a range's subtype and, on 14+, a
	 * multirange's range.
	 */
	private static final String UNSENDABLE = """
			WITH RECURSIVE cols AS (
			  SELECT n.nspname, c.relname, a.attname, a.attnum, a.atttypid AS root
			  FROM pg_class c
			  JOIN pg_namespace n ON n.oid = c.relnamespace
			  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
			  WHERE (n.nspname, c.relname) IN (SELECT * FROM unnest(?::text[], ?::text[]))
			), tree(nspname, relname, attname, attnum, root, typ, depth) AS (
			  SELECT nspname, relname, attname, attnum, root, root, 0 FROM cols
			  UNION ALL
			  SELECT tr.nspname, tr.relname, tr.attname, tr.attnum, tr.root, dep.oid, tr.depth + 1
			  FROM tree tr
			  JOIN pg_type t ON t.oid = tr.typ
			  JOIN LATERAL (
			    SELECT t.typbasetype AS oid WHERE t.typtype = 'd'
			    UNION ALL SELECT t.typelem WHERE t.typelem <> 0 AND t.typlen = -1
			    UNION ALL SELECT f.atttypid FROM pg_attribute f
			      WHERE t.typtype = 'c' AND f.attrelid = t.typrelid AND f.attnum > 0 AND NOT f.attisdropped
			    UNION ALL SELECT r.rngsubtype FROM pg_range r WHERE t.typtype = 'r' AND r.rngtypid = t.oid
			    :multirange
			  ) dep ON true
			  WHERE tr.depth < 16
			)
			SELECT DISTINCT ON (tr.nspname, tr.relname, tr.attnum)
			       tr.nspname, tr.relname, tr.attname, tr.root, format_type(tr.root, NULL), tr.typ,
			       format_type(tr.typ, NULL)
			FROM tree tr
			JOIN pg_type top ON top.oid = tr.root
			JOIN pg_type inner_type ON inner_type.oid = tr.typ
			WHERE tr.depth > 0 AND top.typsend <> 0 AND inner_type.typsend = 0
			ORDER BY tr.nspname, tr.relname, tr.attnum, tr.depth
			""";

	private static final String MULTIRANGE = "UNION ALL SELECT r.rngtypid FROM pg_range r"
			+ " WHERE t.typtype = 'm' AND r.rngmultitypid = t.oid";

	private final Connection connection;

	private int serverVersion;

	/**
	 * Creates a catalog over a connection.
	 * @param connection the connection to use, owned by the caller
	 */
	public TableCatalog(Connection connection) {
		this.connection = Objects.requireNonNull(connection, "connection");
	}

	/**
	 * Describes tables as the catalog holds them now. Tables that do not exist (or are
	 * not ordinary or partitioned tables) are left out.
	 * @param tables the tables
	 * @return the tables found, ordered by schema and name
	 */
	public List<CatalogTable> tables(Collection<TableId> tables) {
		if (tables.isEmpty()) {
			return List.of();
		}
		return query("read the columns of " + tables, COLUMNS.replace(":where", BY_NAME), (statement) -> {
			bindNames(statement, tables);
		});
	}

	/**
	 * Describes one table by its OID as the catalog holds it now.
	 * @param relationOid the table's OID
	 * @return the table, or empty if no table has that OID
	 */
	public Optional<CatalogTable> table(int relationOid) {
		List<CatalogTable> found = query("read the columns of relation OID " + Integer.toUnsignedString(relationOid),
				COLUMNS.replace(":where", "c.oid = ?"),
				(statement) -> statement.setLong(1, Integer.toUnsignedLong(relationOid)));
		return found.stream().findFirst();
	}

	/**
	 * Finds the columns of these tables whose values the server cannot send in binary
	 * (see {@link UnsendableColumn}), so that binary streaming can be refused, or text
	 * chosen, before the first change of one fails the stream on the server.
	 * @param tables the tables (published or to be published)
	 * @return those columns, in table and column order; empty if every column can be sent
	 */
	public List<UnsendableColumn> typesWithoutBinarySend(Collection<TableId> tables) {
		if (tables.isEmpty()) {
			return List.of();
		}
		String sql = UNSENDABLE.replace(":multirange", (serverVersion() >= 140000) ? MULTIRANGE : "");
		try (PreparedStatement statement = this.connection.prepareStatement(sql)) {
			bindNames(statement, tables);
			List<UnsendableColumn> columns = new ArrayList<>();
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					columns.add(new UnsendableColumn(new TableId(row.getString(1), row.getString(2)), row.getString(3),
							(int) row.getLong(4), row.getString(5), (int) row.getLong(6), row.getString(7)));
				}
			}
			return List.copyOf(columns);
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not check the binary send functions of the columns of " + tables, ex);
		}
	}

	/**
	 * Looks up a replication origin's name ({@code pg_replication_origin}).
	 * @param originId the origin's id ({@code roident})
	 * @return the name, or empty if there is no such origin (any more)
	 */
	public Optional<String> originName(int originId) {
		try (PreparedStatement statement = this.connection
			.prepareStatement("SELECT roname FROM pg_replication_origin WHERE roident = ?")) {
			statement.setInt(1, originId);
			try (ResultSet row = statement.executeQuery()) {
				return row.next() ? Optional.of(row.getString(1)) : Optional.empty();
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not look up replication origin " + originId, ex);
		}
	}

	/**
	 * Returns the tables of pglogical replication sets of the local node.
	 * @param replicationSets the sets' names
	 * @return the tables, ordered by schema and name
	 * @throws PostlogException if pglogical is not installed in the database, or a set
	 * does not exist
	 */
	public List<TableId> replicationSetTables(Collection<String> replicationSets) {
		String sql = """
				SELECT w.name, s.set_id IS NOT NULL, n.nspname, c.relname
				FROM unnest(?::text[]) AS w(name)
				LEFT JOIN pglogical.replication_set s ON s.set_name = w.name
				  AND s.set_nodeid = (SELECT node_id FROM pglogical.local_node)
				LEFT JOIN pglogical.replication_set_table r ON r.set_id = s.set_id
				LEFT JOIN pg_class c ON c.oid = r.set_reloid
				LEFT JOIN pg_namespace n ON n.oid = c.relnamespace
				ORDER BY 3, 4
				""";
		try (PreparedStatement statement = this.connection.prepareStatement(sql)) {
			statement.setArray(1, this.connection.createArrayOf("text", replicationSets.toArray()));
			List<TableId> tables = new ArrayList<>();
			List<String> missing = new ArrayList<>();
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					if (!row.getBoolean(2)) {
						missing.add(row.getString(1));
						continue;
					}
					if (row.getString(3) != null) {
						TableId table = new TableId(row.getString(3), row.getString(4));
						if (!tables.contains(table)) {
							tables.add(table);
						}
					}
				}
			}
			if (!missing.isEmpty()) {
				throw new PostlogException("pglogical replication sets " + missing
						+ " do not exist on the local node; create them with pglogical.create_replication_set");
			}
			return List.copyOf(tables);
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read the tables of pglogical replication sets " + replicationSets
					+ " (is the pglogical extension installed, with a local node?)", ex);
		}
	}

	private int serverVersion() {
		if (this.serverVersion == 0) {
			this.serverVersion = new ReplicationAdmin(this.connection).serverVersion();
		}
		return this.serverVersion;
	}

	private void bindNames(PreparedStatement statement, Collection<TableId> tables) throws SQLException {
		Array schemas = this.connection.createArrayOf("text", tables.stream().map(TableId::schema).toArray());
		Array names = this.connection.createArrayOf("text", tables.stream().map(TableId::name).toArray());
		statement.setArray(1, schemas);
		statement.setArray(2, names);
	}

	private List<CatalogTable> query(String action, String sql, Binder binder) {
		String generated = (serverVersion() >= 120000) ? "a.attgenerated <> ''" : "false";
		try (PreparedStatement statement = this.connection.prepareStatement(sql.replace(":generated", generated))) {
			binder.bind(statement);
			Map<Integer, Builder> tables = new LinkedHashMap<>();
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					int oid = (int) row.getLong(1);
					Builder table = tables.get(oid);
					if (table == null) {
						table = new Builder(oid, new TableId(row.getString(2), row.getString(3)),
								row.getString(4).charAt(0));
						tables.put(oid, table);
					}
					if (row.getString(5) != null) {
						table.columns.add(new CatalogColumn(row.getString(5), (int) row.getLong(6), row.getInt(7),
								row.getBoolean(9), row.getBoolean(8), row.getBoolean(10)));
					}
				}
			}
			return tables.values().stream().map(Builder::build).toList();
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not " + action, ex);
		}
	}

	@FunctionalInterface
	private interface Binder {

		void bind(PreparedStatement statement) throws SQLException;

	}

	private static final class Builder {

		final int oid;

		final TableId table;

		final char replicaIdentity;

		final List<CatalogColumn> columns = new ArrayList<>();

		Builder(int oid, TableId table, char replicaIdentity) {
			this.oid = oid;
			this.table = table;
			this.replicaIdentity = replicaIdentity;
		}

		CatalogTable build() {
			return new CatalogTable(this.table, this.oid, this.replicaIdentity, this.columns);
		}

	}

}
