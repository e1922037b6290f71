package io.postlog.admin;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.postlog.PostlogException;
import io.postlog.TableId;
import org.jspecify.annotations.Nullable;

/**
 * The row filters and column lists of publications (PostgreSQL 15 and later): reading
 * what a publication holds, and checking configured filters by publishing them in a trial
 * publication inside a transaction that is always rolled back. The trial gives each
 * filter in the server's own form ({@code pg_get_expr}, columns in table order), so that
 * a configured filter compares equal to the same filter in an existing publication
 * however it was spelled; and it lets the server refuse a filter, table by table, before
 * anything is created. Not thread-safe, like the connection it borrows.
 */
final class PublicationFilters {

	/** The first {@code server_version_num} with row filters and column lists. */
	static final int VERSION = 150000;

	private static final String TRIAL = "postlog_filter_check";

	private static final Pattern VARIABLE = Pattern.compile("\\{VAR :varno \\d+ :varattno (\\d+)");

	private final Connection connection;

	private final Supplier<String> currentUser;

	PublicationFilters(Connection connection, Supplier<String> currentUser) {
		this.connection = connection;
		this.currentUser = currentUser;
	}

	/**
	 * Returns the filters a publication holds, by table: only tables published with a row
	 * filter or a column list.
	 */
	Map<TableId, TableFilter> read(String publication) {
		Map<TableId, TableFilter> filters = new LinkedHashMap<>();
		try (PreparedStatement statement = this.connection.prepareStatement("SELECT n.nspname, c.relname,"
				+ " pg_catalog.pg_get_expr(pr.prqual, pr.prrelid), CASE WHEN pr.prattrs IS NULL THEN NULL ELSE"
				+ " ARRAY(SELECT a.attname::text FROM pg_catalog.pg_attribute a WHERE a.attrelid = pr.prrelid"
				+ " AND a.attnum = ANY (pr.prattrs::int2[]) ORDER BY a.attnum) END"
				+ " FROM pg_catalog.pg_publication_rel pr JOIN pg_catalog.pg_publication p ON p.oid = pr.prpubid"
				+ " JOIN pg_catalog.pg_class c ON c.oid = pr.prrelid"
				+ " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
				+ " WHERE p.pubname = ? AND (pr.prqual IS NOT NULL OR pr.prattrs IS NOT NULL) ORDER BY 1, 2")) {
			statement.setString(1, publication);
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					Array columns = row.getArray(4);
					filters.put(new TableId(row.getString(1), row.getString(2)), new TableFilter(row.getString(3),
							(columns != null) ? Arrays.asList((String[]) columns.getArray()) : List.of()));
				}
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read the row filters and column lists of publication '"
					+ PgIdentifiers.printable(publication) + "'", ex);
		}
		return filters;
	}

	/**
	 * Checks configured filters on the server and returns each in the server's form.
	 * @param filters the filters, none empty
	 * @return the same filters as the server holds them
	 * @throws PublicationFilterException if the server refuses one, or one would make the
	 * table's updates or deletes fail
	 */
	Map<TableId, TableFilter> check(Map<TableId, TableFilter> filters) {
		try {
			boolean autoCommit = this.connection.getAutoCommit();
			this.connection.setAutoCommit(false);
			try {
				return trial(filters);
			}
			finally {
				this.connection.rollback();
				this.connection.setAutoCommit(autoCommit);
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not check the configured row filters and column lists", ex);
		}
	}

	private Map<TableId, TableFilter> trial(Map<TableId, TableFilter> filters) throws SQLException {
		try (Statement statement = this.connection.createStatement()) {
			try {
				statement.execute("CREATE PUBLICATION " + TRIAL);
			}
			catch (SQLException ex) {
				if (PgErrors.isInsufficientPrivilege(ex)) {
					throw new InsufficientPrivilegeException(this.currentUser.get(), "create a publication (postlog "
							+ "checks postlog.filters in a trial publication that it always rolls back)", ex);
				}
				throw ex;
			}
			for (Map.Entry<TableId, TableFilter> entry : filters.entrySet()) {
				TableId table = entry.getKey();
				TableFilter filter = entry.getValue();
				String problem = (filter.where() != null) ? RowFilterText.problem(filter.where()) : null;
				if (problem != null) {
					throw new PublicationFilterException(table, filter,
							"the row filter must be one SQL expression, and " + problem, null);
				}
				try {
					statement.execute(
							"ALTER PUBLICATION " + TRIAL + " ADD TABLE " + filter.clause(PgIdentifiers.quote(table)));
				}
				catch (SQLException ex) {
					// DDL reads no rows: the server's message quotes the filter, not
					// data.
					throw new PublicationFilterException(table, filter, "the server refused it: " + firstLine(ex), ex);
				}
			}
		}
		Map<TableId, TableFilter> canonical = read(TRIAL);
		checkReplicaIdentity(filters);
		return canonical;
	}

	/**
	 * Refuses a filter under which the server would refuse the table's updates and
	 * deletes: a row filter over a column outside the replica identity, or a column list
	 * without all of it.
	 */
	private void checkReplicaIdentity(Map<TableId, TableFilter> filters) throws SQLException {
		try (PreparedStatement statement = this.connection.prepareStatement("SELECT n.nspname, c.relname, c.oid,"
				+ " c.relreplident, pr.prqual::text, pr.prattrs::int2[], (SELECT i.indkey::int2[]"
				+ " FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid AND CASE c.relreplident"
				+ " WHEN 'i' THEN i.indisreplident WHEN 'd' THEN i.indisprimary ELSE false END LIMIT 1)"
				+ " FROM pg_catalog.pg_publication_rel pr JOIN pg_catalog.pg_publication p ON p.oid = pr.prpubid"
				+ " JOIN pg_catalog.pg_class c ON c.oid = pr.prrelid"
				+ " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE p.pubname = ?")) {
			statement.setString(1, TRIAL);
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					TableId table = new TableId(row.getString(1), row.getString(2));
					Map<Integer, String> names = columnNames(row.getLong(3));
					Set<Integer> identity = ("f".equals(row.getString(4))) ? names.keySet() : attnums(row.getArray(7));
					if (identity.isEmpty()) {
						// No replica identity: the start-up checks refuse or warn about
						// it.
						continue;
					}
					TableFilter filter = filters.getOrDefault(table, new TableFilter(null, List.of()));
					Set<Integer> outside = new TreeSet<>(variables(row.getString(5)));
					outside.removeAll(identity);
					if (!outside.isEmpty()) {
						throw new PublicationFilterException(table, filter,
								"its row filter uses " + names(outside, names)
										+ ", outside the table's replica identity " + names(identity, names)
										+ ", so the server would refuse every UPDATE and DELETE "
										+ "of it; filter on replica identity columns only, or ALTER TABLE " + table
										+ " REPLICA IDENTITY FULL",
								null);
					}
					Array listed = row.getArray(6);
					if (listed != null) {
						Set<Integer> missing = new TreeSet<>(identity);
						missing.removeAll(attnums(listed));
						if (!missing.isEmpty()) {
							throw new PublicationFilterException(table, filter,
									"its column list leaves out " + names(missing, names)
											+ " of the table's replica identity, so the server "
											+ "would refuse every UPDATE and DELETE of it; add them to the column list",
									null);
						}
					}
				}
			}
		}
	}

	private Map<Integer, String> columnNames(long oid) throws SQLException {
		Map<Integer, String> names = new HashMap<>();
		try (PreparedStatement statement = this.connection.prepareStatement("SELECT a.attnum, a.attname"
				+ " FROM pg_catalog.pg_attribute a WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped"
				+ " AND a.attgenerated = ''")) {
			statement.setLong(1, oid);
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					names.put(row.getInt(1), row.getString(2));
				}
			}
		}
		return names;
	}

	private static Set<Integer> attnums(@Nullable Array array) throws SQLException {
		Set<Integer> attnums = new TreeSet<>();
		if (array != null) {
			for (Object attnum : (Object[]) array.getArray()) {
				attnums.add(((Number) attnum).intValue());
			}
		}
		return attnums;
	}

	/**
	 * Returns the columns a stored row filter ({@code pg_node_tree} text) reads.
	 */
	static Set<Integer> variables(@Nullable String nodeTree) {
		Set<Integer> attnums = new TreeSet<>();
		if (nodeTree != null) {
			Matcher matcher = VARIABLE.matcher(nodeTree);
			while (matcher.find()) {
				attnums.add(Integer.parseInt(matcher.group(1)));
			}
		}
		return attnums;
	}

	private static List<String> names(Set<Integer> attnums, Map<Integer, String> names) {
		List<String> list = new ArrayList<>();
		attnums.forEach((attnum) -> list.add(names.getOrDefault(attnum, "#" + attnum)));
		return list;
	}

	private static String firstLine(SQLException ex) {
		String message = String.valueOf(ex.getMessage());
		int newline = message.indexOf('\n');
		return (newline < 0) ? message : message.substring(0, newline);
	}

}
