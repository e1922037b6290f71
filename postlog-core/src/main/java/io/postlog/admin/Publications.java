package io.postlog.admin;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import io.postlog.PostlogException;
import io.postlog.TableId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publications of one database: whether one exists, what it publishes, and making
 * sure it publishes what the consumer needs. {@link ReplicationAdmin}'s publication
 * methods delegate here. Names are checked before any SQL runs and quoted in statements.
 * Not thread-safe, like the connection it borrows.
 */
final class Publications {

	/**
	 * The category it logged under as part of {@code ReplicationAdmin}, kept for users.
	 */
	private static final Logger logger = LoggerFactory.getLogger("io.postlog.admin.ReplicationAdmin");

	private final Connection connection;

	private final Supplier<String> currentUser;

	private final IntSupplier version;

	private final PublicationFilters filters;

	Publications(Connection connection, Supplier<String> currentUser, IntSupplier version) {
		this.connection = connection;
		this.currentUser = currentUser;
		this.version = version;
		this.filters = new PublicationFilters(connection, currentUser);
	}

	/**
	 * Returns whether a publication exists in this database.
	 * @param name the publication name
	 * @return {@code true} if it exists
	 * @throws InvalidIdentifierException if the name is not valid
	 */
	boolean exists(String name) {
		PgIdentifiers.requireName("publication", name);
		try (PreparedStatement statement = this.connection
			.prepareStatement("SELECT 1 FROM pg_publication WHERE pubname = ?")) {
			statement.setString(1, name);
			try (ResultSet row = statement.executeQuery()) {
				return row.next();
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not look up publication '" + name + "'", ex);
		}
	}

	/**
	 * Returns the tables a publication publishes now, ordered by schema and name (for a
	 * {@code FOR ALL TABLES} publication, every table it currently covers).
	 * @param name the publication name
	 * @return the tables
	 * @throws InvalidIdentifierException if the name is not valid
	 * @throws PublicationNotFoundException if there is no such publication
	 */
	List<TableId> tables(String name) {
		if (!exists(name)) {
			throw new PublicationNotFoundException(name);
		}
		List<TableId> tables = new ArrayList<>();
		try (PreparedStatement statement = this.connection.prepareStatement(
				"SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = ? ORDER BY 1, 2")) {
			statement.setString(1, name);
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					tables.add(new TableId(row.getString(1), row.getString(2)));
				}
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read the tables of publication '" + name + "'", ex);
		}
		return List.copyOf(tables);
	}

	/**
	 * Makes sure a publication exists as the mode says. An empty table list means every
	 * table: a missing publication is created {@code FOR ALL TABLES} (which needs a
	 * superuser), and {@link PublicationMode#SYNC} has nothing to add. postlog never
	 * drops a publication or removes tables from it; tables an
	 * {@link PublicationMode#EXISTING} publication lacks are logged as a warning. Filters
	 * are checked first (see {@link PublicationFilters}); tables are created or added
	 * with theirs, and a table the publication already publishes with another filter is
	 * refused, in every mode.
	 * @param name the publication name
	 * @param mode what to do when it is missing or lacks tables
	 * @param tables the tables to publish, or empty for all tables
	 * @param filters row filters and column lists by table, each among the tables
	 * @throws InvalidIdentifierException if a name is not valid (checked before any SQL)
	 * @throws PublicationNotFoundException if an existing publication is required but
	 * missing
	 * @throws InsufficientPrivilegeException if the role may not create or alter it
	 * @throws PublicationFilterException if a filter is refused
	 */
	void ensure(String name, PublicationMode mode, List<TableId> tables, Map<TableId, TableFilter> filters) {
		String quotedName = PgIdentifiers.quote("publication", name);
		Objects.requireNonNull(mode, "mode");
		Set<TableId> wanted = new LinkedHashSet<>(tables);
		wanted.forEach(PgIdentifiers::quote);
		Map<TableId, TableFilter> configured = new LinkedHashMap<>();
		filters.forEach((table, filter) -> {
			if (!filter.isEmpty()) {
				configured.put(table, filter);
			}
		});
		configured.forEach((table, filter) -> requireListed(name, wanted, table, filter));
		Map<TableId, TableFilter> expected = configured.isEmpty() ? Map.of() : this.filters.check(configured);
		boolean exists = exists(name);
		if (!exists && mode == PublicationMode.EXISTING) {
			throw new PublicationNotFoundException(name);
		}
		if (!exists) {
			String target = wanted.isEmpty() ? "FOR ALL TABLES" : "FOR TABLE " + quotedList(wanted, configured);
			if (execute("CREATE PUBLICATION " + quotedName + " " + target, "create publication '" + name + "'")) {
				logger.info("Created publication '{}' {}", PgIdentifiers.printable(name),
						wanted.isEmpty() ? "for all tables" : "for " + wanted);
				return;
			}
			// Another process created it first; treat it like an existing one.
		}
		if (wanted.isEmpty()) {
			return;
		}
		if (publishesAllTables(name)) {
			configured.forEach((table, filter) -> {
				throw new PublicationFilterException(table, filter, "publication '" + PgIdentifiers.printable(name)
						+ "' publishes all tables, which takes no filters; publish the tables by name", null);
			});
			return;
		}
		List<TableId> published = tables(name);
		if (this.version.getAsInt() >= PublicationFilters.VERSION) {
			compare(name, published, configured, expected);
		}
		wanted.removeAll(published);
		if (wanted.isEmpty()) {
			return;
		}
		if (mode == PublicationMode.SYNC) {
			execute("ALTER PUBLICATION " + quotedName + " ADD TABLE " + quotedList(wanted, configured),
					"add tables to publication '" + name + "'");
			logger.info("Added {} to publication '{}'", wanted, PgIdentifiers.printable(name));
		}
		else {
			logger.warn("Publication '{}' does not publish {}; changes to them will not arrive",
					PgIdentifiers.printable(name), wanted);
		}
	}

	private boolean publishesAllTables(String name) {
		try (PreparedStatement statement = this.connection
			.prepareStatement("SELECT puballtables FROM pg_publication WHERE pubname = ?")) {
			statement.setString(1, name);
			try (ResultSet row = statement.executeQuery()) {
				return row.next() && row.getBoolean(1);
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not look up publication '" + name + "'", ex);
		}
	}

	/**
	 * Returns the filters a publication holds, by table (PostgreSQL 15 and later; none
	 * before).
	 */
	Map<TableId, TableFilter> filters(String name) {
		PgIdentifiers.requireName("publication", name);
		return (this.version.getAsInt() >= PublicationFilters.VERSION) ? this.filters.read(name) : Map.of();
	}

	private static void requireListed(String name, Set<TableId> wanted, TableId table, TableFilter filter) {
		if (wanted.isEmpty()) {
			throw new PublicationFilterException(table, filter, "publication '" + PgIdentifiers.printable(name)
					+ "' is to publish every table (no table is named), which takes no filters; name the tables "
					+ "(postlog.tables or the listeners' tables)", null);
		}
		if (!wanted.contains(table)) {
			throw new PublicationFilterException(table, filter, "the table is not among the tables publication '"
					+ PgIdentifiers.printable(name) + "' is to publish " + wanted, null);
		}
	}

	/**
	 * Refuses a published table whose filter differs from the configured one, and warns
	 * about filters the configuration does not name (honoured as they are).
	 */
	private void compare(String name, List<TableId> published, Map<TableId, TableFilter> configured,
			Map<TableId, TableFilter> expected) {
		Map<TableId, TableFilter> actual = this.filters.read(name);
		TableFilter none = new TableFilter(null, List.of());
		for (Map.Entry<TableId, TableFilter> entry : configured.entrySet()) {
			TableId table = entry.getKey();
			TableFilter held = actual.getOrDefault(table, none);
			if (published.contains(table) && !held.equals(expected.get(table))) {
				throw new PublicationFilterException(table, entry.getValue(),
						"publication '" + PgIdentifiers.printable(name) + "' already publishes it with " + held
								+ "; postlog does not change a published table's filter: change postlog.filters to "
								+ "match, or run ALTER PUBLICATION " + PgIdentifiers.quote("publication", name)
								+ " SET TABLE … with the filter you want",
						null);
			}
		}
		actual.forEach((table, held) -> {
			if (!configured.containsKey(table)) {
				logger.warn(
						"Publication '{}' publishes {} with {}, which postlog.filters does not name; "
								+ "changes arrive as the publication filters them",
						PgIdentifiers.printable(name), table, held);
			}
		});
	}

	private static String quotedList(Set<TableId> tables, Map<TableId, TableFilter> filters) {
		StringJoiner joiner = new StringJoiner(", ");
		tables.forEach((table) -> {
			TableFilter filter = filters.get(table);
			String quoted = PgIdentifiers.quote(table);
			joiner.add((filter != null) ? filter.clause(quoted) : quoted);
		});
		return joiner.toString();
	}

	/**
	 * Runs DDL built only from quoted, validated names.
	 * @return {@code false} if the object already existed
	 */
	private boolean execute(String sql, String action) {
		try (Statement statement = this.connection.createStatement()) {
			statement.execute(sql);
			return true;
		}
		catch (SQLException ex) {
			if (PgErrors.isDuplicateObject(ex)) {
				return false;
			}
			if (PgErrors.isInsufficientPrivilege(ex)) {
				throw new InsufficientPrivilegeException(this.currentUser.get(), action, ex);
			}
			throw new PostlogException("Could not " + action, ex);
		}
	}

}
