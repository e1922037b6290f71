package io.postlog.admin;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.TableId;
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

	private final Connection connection;

	private final Publications publications;

	private int serverVersion;

	/**
	 * Creates an admin over a connection.
	 * @param connection the connection to use, owned by the caller
	 */
	public ReplicationAdmin(Connection connection) {
		this.connection = Objects.requireNonNull(connection, "connection");
		this.publications = new Publications(connection, this::currentUser, this::serverVersion);
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
		String sql = SlotQuery.select(serverVersion()) + " WHERE slot_name = ?";
		try (PreparedStatement statement = this.connection.prepareStatement(sql)) {
			statement.setString(1, name);
			try (ResultSet row = statement.executeQuery()) {
				return row.next() ? Optional.of(SlotQuery.map(row)) : Optional.empty();
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not look up replication slot '" + name + "'", ex);
		}
	}

	/**
	 * Lists every logical slot on the server, of every database and plugin, ordered by
	 * database and name: a forgotten slot retains WAL for the whole server.
	 * @return the slots
	 */
	public List<SlotInfo> logicalSlots() {
		String sql = SlotQuery.select(serverVersion()) + " WHERE slot_type = 'logical' ORDER BY database, slot_name";
		List<SlotInfo> slots = new ArrayList<>();
		try (Statement statement = this.connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
			while (row.next()) {
				slots.add(SlotQuery.map(row));
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not list the server's replication slots", ex);
		}
		return List.copyOf(slots);
	}

	/**
	 * Returns the position up to which the server has WAL: {@code pg_current_wal_lsn()}
	 * on a primary, {@code pg_last_wal_replay_lsn()} on a standby (where the former is an
	 * error).
	 * @return the position
	 */
	public Lsn walPosition() {
		return Lsn.parse(queryString("SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()"
				+ " ELSE pg_current_wal_lsn() END)::text", "read the server's WAL position"));
	}

	/**
	 * Reads the settings that decide whether slots are safe, with the slots and WAL
	 * senders in use.
	 * @return the settings
	 */
	public ReplicationSettings replicationSettings() {
		return SettingsQuery.read(this.connection, serverVersion());
	}

	/**
	 * Returns the name of the database this connection is to.
	 * @return {@code current_database()}
	 */
	public String currentDatabase() {
		return queryString("SELECT current_database()", "read the database name");
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
		return ensureSlot(name, lifecycle, PLUGIN, false);
	}

	/**
	 * Makes sure a {@code pgoutput} slot of this name can be streamed from this database,
	 * as {@link #ensureSlot(String, SlotLifecycle)} does, and creates a missing slot with
	 * failover enabled when asked: PostgreSQL 17+ then synchronises it to standbys that
	 * run with {@code sync_replication_slots = on}, so that it survives a promotion. An
	 * existing slot is kept as it is; one without failover is logged at WARN with the
	 * command that enables it.
	 * @param name the slot name
	 * @param lifecycle who creates the slot
	 * @param failover whether a slot postlog creates fails over to standbys
	 * @return the slot, or the description of a temporary slot to come
	 * @throws ServerVersionException if failover is asked for before PostgreSQL 17
	 * @throws PostlogException if failover is asked for a temporary slot (the server
	 * cannot synchronise those)
	 * @see #ensureSlot(String, SlotLifecycle)
	 */
	public SlotInfo ensureSlot(String name, SlotLifecycle lifecycle, boolean failover) {
		return ensureSlot(name, lifecycle, PLUGIN, failover);
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
		return ensureSlot(name, lifecycle, plugin, false);
	}

	/**
	 * Makes sure a slot of this name and output plugin can be streamed from this
	 * database, created with failover when asked: the general form of the other
	 * {@code ensureSlot} methods.
	 * @param name the slot name
	 * @param lifecycle who creates the slot
	 * @param plugin the output plugin the slot must have, or is created with
	 * @param failover whether a slot postlog creates fails over to standbys (17+)
	 * @return the slot, or for a temporary slot not yet created a description of it
	 */
	public SlotInfo ensureSlot(String name, SlotLifecycle lifecycle, String plugin, boolean failover) {
		PgIdentifiers.requireSlotName(name);
		Objects.requireNonNull(plugin, "plugin");
		Objects.requireNonNull(lifecycle, "lifecycle");
		if (failover) {
			requireFailoverSupport(name, lifecycle);
		}
		requireLogicalWalLevel();
		String database = currentDatabase();
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
			if (failover && !Boolean.TRUE.equals(slot.failover())) {
				logger.warn("Replication slot '{}' exists without failover, so a standby does not keep a copy of it; "
						+ "enable it on a replication connection with ALTER_REPLICATION_SLOT {} (FAILOVER true)", name,
						name);
			}
			return slot;
		}
		return switch (lifecycle) {
			case EXISTING -> throw new SlotNotFoundException(name, null);
			case TEMPORARY ->
				new SlotInfo(name, plugin, "logical", database, true, false, null, null, null, null, null);
			case CREATE_IF_MISSING, OWNED -> createSlot(name, database, plugin, failover);
		};
	}

	private void requireFailoverSupport(String name, SlotLifecycle lifecycle) {
		if (serverVersion() < SlotQuery.FAILOVER_VERSION) {
			throw new ServerVersionException("Failover slots", SlotQuery.FAILOVER_VERSION, serverVersion());
		}
		if (lifecycle == SlotLifecycle.TEMPORARY) {
			throw new PostlogException("Replication slot '" + name
					+ "' is temporary and PostgreSQL cannot fail it over; use another lifecycle or turn failover off");
		}
	}

	private SlotInfo createSlot(String name, String database, String plugin, boolean failover) {
		String sql = failover ? "SELECT slot_name FROM pg_create_logical_replication_slot(?, ?, false, false, true)"
				: "SELECT slot_name FROM pg_create_logical_replication_slot(?, ?)";
		try (PreparedStatement statement = this.connection.prepareStatement(sql)) {
			statement.setString(1, name);
			statement.setString(2, plugin);
			statement.executeQuery().close();
			logger.info("Created replication slot '{}' (plugin {}, database {}{})", name, plugin, database,
					failover ? ", failover" : "");
		}
		catch (SQLException ex) {
			if (PgErrors.isInsufficientPrivilege(ex)) {
				throw new InsufficientPrivilegeException(currentUser(),
						"create replication slots (it needs the REPLICATION attribute)", ex);
			}
			if (!PgErrors.isDuplicateObject(ex)) {
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
			if (PgErrors.isObjectInUse(ex)) {
				throw new SlotInUseException(name, null, ex);
			}
			if (PgErrors.isUndefinedObject(ex)) {
				return false;
			}
			if (PgErrors.isInsufficientPrivilege(ex)) {
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
		return this.publications.exists(name);
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
		return this.publications.tables(name);
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
		this.publications.ensure(name, mode, tables, Map.of());
	}

	/**
	 * Makes sure a publication exists as the mode says and publishes each table with its
	 * row filter and column list (PostgreSQL 15 and later), as
	 * {@link #ensurePublication(String, PublicationMode, List)} does without them. The
	 * filters are checked on the server first, in a trial publication that is rolled
	 * back, so that a filter the server refuses, or one under which it would refuse the
	 * table's updates and deletes, fails here naming its table. A table the publication
	 * already publishes with another filter is refused in every mode: postlog never
	 * changes a published table's filter.
	 * @param name the publication name
	 * @param mode what to do when it is missing or lacks tables
	 * @param tables the tables to publish, which must name every filtered table
	 * @param filters row filters and column lists by table; empty filters are ignored
	 * @throws ServerVersionException if a filter is given and the server is older than
	 * PostgreSQL 15
	 * @throws PublicationFilterException if a filter is refused
	 */
	public void ensurePublication(String name, PublicationMode mode, List<TableId> tables,
			Map<TableId, TableFilter> filters) {
		requireFilters(filters);
		this.publications.ensure(name, mode, tables, filters);
	}

	/**
	 * Refuses non-empty filters before PostgreSQL 15, which cannot push them into a
	 * publication (postlog never filters on the client instead).
	 * @param filters the filters by table
	 * @throws ServerVersionException if one is not empty and the server is older than 15
	 */
	public void requireFilters(Map<TableId, TableFilter> filters) {
		boolean any = filters.values().stream().anyMatch((filter) -> !filter.isEmpty());
		int version = serverVersion();
		if (any && version < PublicationFilters.VERSION) {
			throw new ServerVersionException("Row filters and column lists (postlog.filters)",
					PublicationFilters.VERSION, version);
		}
	}

	/**
	 * Returns the row filters and column lists a publication holds, by table: only the
	 * tables published with one (always none before PostgreSQL 15).
	 * @param name the publication name
	 * @return the filters, in the server's form
	 */
	public Map<TableId, TableFilter> publicationFilters(String name) {
		return this.publications.filters(name);
	}

	/**
	 * Returns the role this connection acts as.
	 * @return {@code current_user}
	 */
	public String currentUser() {
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
