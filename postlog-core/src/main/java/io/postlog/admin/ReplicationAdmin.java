package io.postlog.admin;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.TableId;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replication slots, publications and server facts over any JDBC connection to the
 * database to stream from (an ordinary or a replication connection, auto-commit
 * expected). The connection is borrowed, never closed; like the connection, an instance
 * is not thread-safe.
 * <p>
 * Set up the publication before the slot ({@link #ensurePublication} then
 * {@link #ensureSlot}): a slot decodes from where it was created, and pgoutput reads the
 * publication as of each change, so a publication made after the slot misses nothing only
 * if it exists before the first change is decoded.
 * <p>
 * Every name is checked before any SQL runs ({@link PgIdentifiers}); names that go into
 * statements are quoted, values are bound as parameters. Errors are
 * {@link PostlogException}s, typed where a caller must branch, with the server's
 * {@link java.sql.SQLException} (and its SQLState) as cause.
 */
public final class ReplicationAdmin {

	/** The output plugin postlog streams with. */
	public static final String PLUGIN = "pgoutput";

	private static final Logger logger = LoggerFactory.getLogger(ReplicationAdmin.class);

	private static final String INSUFFICIENT_PRIVILEGE = "42501";

	private static final String DUPLICATE_OBJECT = "42710";

	private static final String OBJECT_IN_USE = "55006";

	private final Connection connection;

	private int serverVersion;

	/**
	 * Creates an admin over a connection.
	 * @param connection the connection to use, owned by the caller
	 */
	public ReplicationAdmin(Connection connection) {
		this.connection = Objects.requireNonNull(connection, "connection");
	}

	/**
	 * Returns the server's {@code server_version_num}.
	 * @return the version, for example {@code 170006} or {@code 100023}
	 */
	public int serverVersion() {
		if (this.serverVersion == 0) {
			this.serverVersion = Integer
				.parseInt(queryString("SELECT current_setting('server_version_num')", "read server_version_num"));
		}
		return this.serverVersion;
	}

	/**
	 * Returns the server's {@code wal_level}.
	 * @return {@code logical}, {@code replica} or {@code minimal}
	 */
	public String walLevel() {
		return queryString("SELECT current_setting('wal_level')", "read wal_level");
	}

	/**
	 * Checks that the server can decode changes.
	 * @throws WalLevelException if {@code wal_level} is not {@code logical}
	 */
	public void requireLogicalWalLevel() {
		String walLevel = walLevel();
		if (!"logical".equals(walLevel)) {
			throw new WalLevelException(serverVersion(), walLevel);
		}
	}

	/**
	 * Returns the server's current WAL write position ({@code pg_current_wal_lsn()}, or
	 * on 9.6 its name there, {@code pg_current_xlog_location()}).
	 * @return the position
	 */
	public Lsn currentLsn() {
		return Lsn.parse(queryString("SELECT " + currentLsnFunction(serverVersion()) + "::text",
				"read the current WAL position"));
	}

	/**
	 * Returns the call that reads the current WAL write position: PostgreSQL 10 renamed
	 * the {@code xlog} functions to {@code wal}.
	 */
	static String currentLsnFunction(int serverVersion) {
		return (serverVersion >= 100000) ? "pg_current_wal_lsn()" : "pg_current_xlog_location()";
	}

	/**
	 * Finds the columns of these tables whose values the server cannot send in binary,
	 * such as {@code aclitem[]}; see {@link TableCatalog#typesWithoutBinarySend}.
	 * @param tables the tables
	 * @return those columns, empty if binary streaming can carry every column
	 */
	public List<UnsendableColumn> typesWithoutBinarySend(List<TableId> tables) {
		return new TableCatalog(this.connection).typesWithoutBinarySend(tables);
	}

	/**
	 * Returns whether the connecting role may use replication slots: it has
	 * {@code REPLICATION} or is a superuser.
	 * @return {@code true} if it may
	 */
	public boolean hasReplicationPrivilege() {
		return Boolean.parseBoolean(
				queryString("SELECT (rolreplication OR rolsuper)::text FROM pg_roles WHERE rolname = current_user",
						"read the role's replication privilege"));
	}

	/**
	 * Looks a slot up in {@code pg_replication_slots}.
	 * @param name the slot name
	 * @return the slot, or empty if there is none of that name
	 * @throws InvalidIdentifierException if the name is not a valid slot name
	 */
	public Optional<SlotInfo> slot(String name) {
		PgIdentifiers.requireSlotName(name);
		boolean walStatus = serverVersion() >= 130000;
		// Temporary slots arrived in PostgreSQL 10.
		String temporary = (serverVersion() >= 100000) ? "temporary" : "false";
		String sql = "SELECT slot_name, plugin, slot_type, database, " + temporary + ", active, active_pid,"
				+ " restart_lsn::text, confirmed_flush_lsn::text"
				+ (walStatus ? ", wal_status, safe_wal_size" : ", NULL::text, NULL::bigint")
				+ " FROM pg_replication_slots WHERE slot_name = ?";
		try (PreparedStatement statement = this.connection.prepareStatement(sql)) {
			statement.setString(1, name);
			try (ResultSet row = statement.executeQuery()) {
				return row.next() ? Optional.of(slotInfo(row)) : Optional.empty();
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not look up replication slot '" + name + "'", ex);
		}
	}

	private static SlotInfo slotInfo(ResultSet row) throws SQLException {
		int activePid = row.getInt(7);
		Integer pid = row.wasNull() ? null : activePid;
		long safeWalSize = row.getLong(11);
		Long safe = row.wasNull() ? null : safeWalSize;
		return new SlotInfo(row.getString(1), row.getString(2), row.getString(3), row.getString(4), row.getBoolean(5),
				row.getBoolean(6), pid, lsn(row.getString(8)), lsn(row.getString(9)), row.getString(10), safe);
	}

	private static @Nullable Lsn lsn(@Nullable String text) {
		return (text != null) ? Lsn.parse(text) : null;
	}

	/**
	 * Makes sure a {@code pgoutput} slot of this name can be streamed from this database,
	 * as the lifecycle says. Checks {@code wal_level} first.
	 * @param name the slot name
	 * @param lifecycle who creates the slot: {@link SlotLifecycle#EXISTING} requires it;
	 * {@link SlotLifecycle#CREATE_IF_MISSING} and {@link SlotLifecycle#OWNED} create it
	 * if missing; for {@link SlotLifecycle#TEMPORARY} the stream's own connection creates
	 * it, so this only checks that no permanent slot of that name is in the way
	 * @return the slot; for a temporary slot not yet created, a description of the slot
	 * the stream will create (no positions, not active)
	 * @throws InvalidIdentifierException if the name is not a valid slot name
	 * @throws WalLevelException if the server is not at {@code wal_level=logical}
	 * @throws SlotNotFoundException if an existing slot is required but missing
	 * @throws SlotPluginMismatchException if the slot belongs to another plugin or
	 * database
	 * @throws SlotConflictException if a permanent slot is in the way of a temporary one
	 * @throws InsufficientPrivilegeException if the role may not create slots
	 */
	public SlotInfo ensureSlot(String name, SlotLifecycle lifecycle) {
		return ensureSlot(name, lifecycle, PLUGIN);
	}

	/**
	 * Makes sure a slot of this name and output plugin can be streamed from this
	 * database, as the lifecycle says; {@link #ensureSlot(String, SlotLifecycle)} for
	 * another plugin, such as {@code wal2json} or {@code pglogical_output}.
	 * @param name the slot name
	 * @param lifecycle who creates the slot
	 * @param plugin the output plugin the slot must have, or is created with
	 * @return the slot, or for a temporary slot not yet created a description of it
	 * @throws SlotPluginMismatchException if the slot belongs to another plugin or
	 * database
	 * @see #ensureSlot(String, SlotLifecycle)
	 */
	public SlotInfo ensureSlot(String name, SlotLifecycle lifecycle, String plugin) {
		PgIdentifiers.requireSlotName(name);
		Objects.requireNonNull(plugin, "plugin");
		Objects.requireNonNull(lifecycle, "lifecycle");
		requireLogicalWalLevel();
		String database = queryString("SELECT current_database()", "read the database name");
		Optional<SlotInfo> existing = slot(name);
		if (existing.isPresent()) {
			SlotInfo slot = existing.get();
			if (!plugin.equals(slot.plugin()) || !database.equals(slot.database())) {
				throw new SlotPluginMismatchException(slot, plugin, database);
			}
			if (lifecycle == SlotLifecycle.TEMPORARY && !slot.temporary()) {
				throw new SlotConflictException(
						"A permanent replication slot '" + name
								+ "' exists where a temporary one was asked for; use another slot name or drop it",
						slot);
			}
			return slot;
		}
		return switch (lifecycle) {
			case EXISTING -> throw new SlotNotFoundException(name, null);
			case TEMPORARY ->
				new SlotInfo(name, plugin, "logical", database, true, false, null, null, null, null, null);
			case CREATE_IF_MISSING, OWNED -> createSlot(name, database, plugin);
		};
	}

	private SlotInfo createSlot(String name, String database, String plugin) {
		try (PreparedStatement statement = this.connection
			.prepareStatement("SELECT slot_name FROM pg_create_logical_replication_slot(?, ?)")) {
			statement.setString(1, name);
			statement.setString(2, plugin);
			statement.executeQuery().close();
			logger.info("Created replication slot '{}' (plugin {}, database {})", name, plugin, database);
		}
		catch (SQLException ex) {
			if (INSUFFICIENT_PRIVILEGE.equals(ex.getSQLState())) {
				throw new InsufficientPrivilegeException(currentUser(),
						"create replication slots (it needs the REPLICATION attribute)", ex);
			}
			if (!DUPLICATE_OBJECT.equals(ex.getSQLState())) {
				throw new PostlogException("Could not create replication slot '" + name + "'", ex);
			}
			// Another process created it between our look-up and ours: check theirs.
			SlotInfo theirs = slot(name).orElseThrow(() -> new SlotNotFoundException(name, ex));
			if (!plugin.equals(theirs.plugin()) || !database.equals(theirs.database())) {
				throw new SlotPluginMismatchException(theirs, plugin, database);
			}
			return theirs;
		}
		return slot(name).orElseThrow(() -> new SlotNotFoundException(name, null));
	}

	/**
	 * Drops a slot that no process is streaming from.
	 * @param name the slot name
	 * @return {@code true} if the slot existed and was dropped, {@code false} if there
	 * was none
	 * @throws InvalidIdentifierException if the name is not a valid slot name
	 * @throws SlotInUseException if a process is streaming from it
	 */
	public boolean dropSlot(String name) {
		Optional<SlotInfo> slot = slot(name);
		if (slot.isEmpty()) {
			return false;
		}
		if (slot.get().active()) {
			throw new SlotInUseException(name, slot.get().activePid(), null);
		}
		try (PreparedStatement statement = this.connection.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
			statement.setString(1, name);
			statement.executeQuery().close();
			logger.info("Dropped replication slot '{}'", name);
			return true;
		}
		catch (SQLException ex) {
			if (OBJECT_IN_USE.equals(ex.getSQLState())) {
				throw new SlotInUseException(name, null, ex);
			}
			if ("42704".equals(ex.getSQLState())) {
				return false;
			}
			if (INSUFFICIENT_PRIVILEGE.equals(ex.getSQLState())) {
				throw new InsufficientPrivilegeException(currentUser(), "drop replication slots", ex);
			}
			throw new PostlogException("Could not drop replication slot '" + name + "'", ex);
		}
	}

	/**
	 * Returns whether a publication exists in this database.
	 * @param name the publication name
	 * @return {@code true} if it exists
	 * @throws InvalidIdentifierException if the name is not valid
	 */
	public boolean publicationExists(String name) {
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
	public List<TableId> publicationTables(String name) {
		if (!publicationExists(name)) {
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
	 * {@link PublicationMode#EXISTING} publication lacks are logged as a warning.
	 * @param name the publication name
	 * @param mode what to do when it is missing or lacks tables
	 * @param tables the tables to publish, or empty for all tables
	 * @throws InvalidIdentifierException if a name is not valid (checked before any SQL)
	 * @throws PublicationNotFoundException if an existing publication is required but
	 * missing
	 * @throws InsufficientPrivilegeException if the role may not create or alter it
	 */
	public void ensurePublication(String name, PublicationMode mode, List<TableId> tables) {
		String quotedName = PgIdentifiers.quote("publication", name);
		Objects.requireNonNull(mode, "mode");
		Set<TableId> wanted = new LinkedHashSet<>(tables);
		wanted.forEach(PgIdentifiers::quote);
		boolean exists = publicationExists(name);
		if (!exists && mode == PublicationMode.EXISTING) {
			throw new PublicationNotFoundException(name);
		}
		if (!exists) {
			String target = wanted.isEmpty() ? "FOR ALL TABLES" : "FOR TABLE " + quotedList(wanted);
			if (execute("CREATE PUBLICATION " + quotedName + " " + target, "create publication '" + name + "'")) {
				logger.info("Created publication '{}' {}", name, wanted.isEmpty() ? "for all tables" : "for " + wanted);
				return;
			}
			// Another process created it first; treat it like an existing one.
		}
		if (wanted.isEmpty() || publishesAllTables(name)) {
			return;
		}
		wanted.removeAll(publicationTables(name));
		if (wanted.isEmpty()) {
			return;
		}
		if (mode == PublicationMode.SYNC) {
			execute("ALTER PUBLICATION " + quotedName + " ADD TABLE " + quotedList(wanted),
					"add tables to publication '" + name + "'");
			logger.info("Added {} to publication '{}'", wanted, name);
		}
		else {
			logger.warn("Publication '{}' does not publish {}; changes to them will not arrive", name, wanted);
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

	private static String quotedList(Set<TableId> tables) {
		StringJoiner joiner = new StringJoiner(", ");
		tables.forEach((table) -> joiner.add(PgIdentifiers.quote(table)));
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
			if (DUPLICATE_OBJECT.equals(ex.getSQLState())) {
				return false;
			}
			if (INSUFFICIENT_PRIVILEGE.equals(ex.getSQLState())) {
				throw new InsufficientPrivilegeException(currentUser(), action, ex);
			}
			throw new PostlogException("Could not " + action, ex);
		}
	}

	private String currentUser() {
		return queryString("SELECT current_user", "read the current user");
	}

	private String queryString(String sql, String action) {
		try (Statement statement = this.connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
			if (!row.next()) {
				throw new PostlogException("Could not " + action + ": no result");
			}
			return row.getString(1);
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not " + action, ex);
		}
	}

	/**
	 * Formats a {@code server_version_num} as {@code 17.6 (170006)}.
	 */
	static String versionText(int serverVersion) {
		return (serverVersion / 10000) + "." + (serverVersion % 10000) + " (" + serverVersion + ")";
	}

}
