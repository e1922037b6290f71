package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

import io.postlog.Lsn;
import io.postlog.admin.InsufficientPrivilegeException;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PgIdentifiers;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotInUseException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logical slot just created on a replication connection together with the snapshot the
 * server exported for it: the database exactly as of the slot's consistent point, so that
 * reading every table under it and then streaming the slot from that point sees each
 * committed change once.
 * <p>
 * <b>Lifetime.</b> The server keeps an exported snapshot only until the replication
 * connection that created it runs its next command or closes. This object therefore owns
 * that connection and keeps it idle: nothing else may use it until the snapshot has been
 * imported by every reader ({@link SnapshotReader} imports it on all its connections
 * before it reads a row). {@link #close()} closes the connection, which also drops a
 * temporary slot; {@link #takeConnection()} hands the connection over instead, for
 * example to stream a temporary slot on it after the read.
 * <p>
 * The accessors are thread-safe; {@link #close()} and {@link #takeConnection()} are meant
 * for the owning thread.
 */
public final class ExportedSnapshot implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(ExportedSnapshot.class);

	/**
	 * What the server exports: {@code %08X-%08X-%d} (virtual transaction id and counter)
	 * on PostgreSQL 10 and later, {@code %08X-%d} on 9.6. Nothing else can reach the
	 * string literal of {@code SET TRANSACTION SNAPSHOT}.
	 */
	private static final Pattern SNAPSHOT_NAME = Pattern.compile("[0-9A-F]{8}(-[0-9A-F]{8})?-[0-9]{1,10}");

	private static final int SNAPSHOT_OPTION_VERSION = 150000;

	private static final int IDLE_SESSION_TIMEOUT_VERSION = 140000;

	private final Connection connection;

	private final String slotName;

	private final String streamSlotName;

	private final boolean temporary;

	private final Lsn consistentPoint;

	private final String snapshotName;

	private final Instant createdAt;

	private final int serverVersion;

	private volatile boolean owned = true;

	private ExportedSnapshot(Connection connection, String slotName, String streamSlotName, boolean temporary,
			Lsn consistentPoint, String snapshotName, Instant createdAt, int serverVersion) {
		this.connection = connection;
		this.slotName = slotName;
		this.streamSlotName = streamSlotName;
		this.temporary = temporary;
		this.consistentPoint = consistentPoint;
		this.snapshotName = snapshotName;
		this.createdAt = createdAt;
		this.serverVersion = serverVersion;
	}

	/**
	 * Creates a {@code pgoutput} slot and exports its snapshot, issuing
	 * {@code CREATE_REPLICATION_SLOT name [TEMPORARY] LOGICAL pgoutput EXPORT_SNAPSHOT}
	 * (PostgreSQL 10 to 14) or {@code ... LOGICAL pgoutput (SNAPSHOT 'export')} (15 and
	 * later). The call waits until the server reaches a consistent point, which means
	 * until the transactions running when it began have ended.
	 * @param replicationConnection a fresh connection opened with
	 * {@code replication=database} in simple query mode; owned by the snapshot from here
	 * on, and closed if creation fails
	 * @param slotName the slot to create
	 * @param temporary whether the slot is temporary (dropped by the server when the
	 * connection ends)
	 * @return the snapshot, holding the connection
	 * @throws io.postlog.admin.InvalidIdentifierException if the slot name is invalid
	 * @throws SlotInUseException if a slot of that name exists ({@code 42710})
	 * @throws InsufficientPrivilegeException if the role may not create slots
	 * @throws InvalidSnapshotNameException if the server's answer is not a snapshot name
	 * @throws SnapshotException if the command fails otherwise
	 */
	public static ExportedSnapshot create(Connection replicationConnection, String slotName, boolean temporary) {
		return create(replicationConnection, slotName, temporary, slotName);
	}

	/**
	 * Creates the slot as {@link #create(Connection, String, boolean)} does, for a stream
	 * that will read another slot: a temporary snapshot slot that is copied into the
	 * permanent one when the snapshot is complete.
	 */
	static ExportedSnapshot create(Connection replicationConnection, String slotName, boolean temporary,
			String streamSlotName) {
		Objects.requireNonNull(replicationConnection, "replicationConnection");
		try {
			PgIdentifiers.requireSlotName(slotName);
			PgIdentifiers.requireSlotName(streamSlotName);
			int serverVersion = serverVersion(replicationConnection);
			String command = createCommand(serverVersion, slotName, temporary);
			try (Statement settings = replicationConnection.createStatement()) {
				for (String setting : sessionSettings(serverVersion)) {
					settings.execute(setting);
				}
			}
			try (Statement statement = replicationConnection.createStatement();
					ResultSet row = statement.executeQuery(command)) {
				if (!row.next()) {
					throw new SnapshotException("CREATE_REPLICATION_SLOT for slot '" + slotName + "' returned no row",
							null);
				}
				Lsn consistentPoint = Lsn.parse(row.getString("consistent_point"));
				String snapshotName = requireSnapshotName(String.valueOf(row.getString("snapshot_name")));
				ExportedSnapshot snapshot = new ExportedSnapshot(replicationConnection, slotName, streamSlotName,
						temporary, consistentPoint, snapshotName, Instant.now(), serverVersion);
				logger.info("Created {} slot '{}' with exported snapshot {} at consistent point {}",
						temporary ? "temporary" : "permanent", slotName, snapshotName, consistentPoint);
				return snapshot;
			}
		}
		catch (SQLException ex) {
			closeQuietly(replicationConnection);
			throw translate(ex, slotName);
		}
		catch (RuntimeException ex) {
			closeQuietly(replicationConnection);
			throw ex;
		}
	}

	/**
	 * Returns the settings the connection needs to hold a snapshot for a long read. The
	 * walsender keeps an exported snapshot in an open transaction until its next command,
	 * so {@code idle_in_transaction_session_timeout} would end the connection, the
	 * snapshot and a temporary slot with it; the slot's creation waits for running
	 * transactions, which a {@code statement_timeout} would cut short; and from 14 on
	 * {@code idle_session_timeout} could end the idle connection too.
	 */
	static List<String> sessionSettings(int serverVersion) {
		List<String> settings = new ArrayList<>();
		settings.add("SET statement_timeout = 0");
		settings.add("SET idle_in_transaction_session_timeout = 0");
		if (serverVersion >= IDLE_SESSION_TIMEOUT_VERSION) {
			settings.add("SET idle_session_timeout = 0");
		}
		return settings;
	}

	/**
	 * Returns the replication command for a server version. Both spellings reach the same
	 * code in the server; 15 added the option list and kept the old keywords, which 10 to
	 * 14 alone understand.
	 */
	static String createCommand(int serverVersion, String slotName, boolean temporary) {
		String head = "CREATE_REPLICATION_SLOT " + PgIdentifiers.requireSlotName(slotName)
				+ (temporary ? " TEMPORARY" : "") + " LOGICAL " + ReplicationAdmin.PLUGIN;
		return (serverVersion >= SNAPSHOT_OPTION_VERSION) ? head + " (SNAPSHOT 'export')" : head + " EXPORT_SNAPSHOT";
	}

	/**
	 * Returns the name if it has the form the server exports.
	 * @param name a snapshot name
	 * @return the same name
	 * @throws InvalidSnapshotNameException if it has any other form
	 */
	public static String requireSnapshotName(String name) {
		if (name == null || !SNAPSHOT_NAME.matcher(name).matches()) {
			throw new InvalidSnapshotNameException(String.valueOf(name));
		}
		return name;
	}

	static int serverVersion(Connection connection) throws SQLException {
		// Read from the server's start-up parameters: no command reaches the connection.
		DatabaseMetaData metaData = connection.getMetaData();
		int major = metaData.getDatabaseMajorVersion();
		int minor = metaData.getDatabaseMinorVersion();
		return (major >= 10) ? major * 10000 + minor : major * 10000 + minor * 100;
	}

	private static RuntimeException translate(SQLException ex, String slotName) {
		if (PgErrors.isDuplicateObject(ex)) {
			return new SlotInUseException(slotName, null, ex);
		}
		if (PgErrors.isInsufficientPrivilege(ex)) {
			return new InsufficientPrivilegeException("(connecting role)", "create replication slots", ex);
		}
		return new SnapshotException("Could not create slot '" + slotName + "' with an exported snapshot (SQLState "
				+ PgErrors.sqlState(ex) + ")", ex);
	}

	/**
	 * Returns the slot the snapshot was exported with.
	 * @return the slot name
	 */
	public String slotName() {
		return this.slotName;
	}

	/**
	 * Returns the slot whose stream follows this snapshot, which names the snapshot's
	 * changes in their ids: {@link #slotName()} unless the snapshot was taken on a
	 * temporary slot that becomes a permanent one of this name.
	 * @return the slot name
	 */
	public String streamSlotName() {
		return this.streamSlotName;
	}

	/**
	 * Returns whether the slot is temporary.
	 * @return {@code true} if the server drops it when the connection ends
	 */
	public boolean temporary() {
		return this.temporary;
	}

	/**
	 * Returns the slot's consistent point: the snapshot holds every transaction that
	 * committed before it, and the slot streams every one that commits after it.
	 * @return the consistent point
	 */
	public Lsn consistentPoint() {
		return this.consistentPoint;
	}

	/**
	 * Returns the exported snapshot's name, which has passed the character check.
	 * @return the name for {@code SET TRANSACTION SNAPSHOT}
	 */
	public String snapshotName() {
		return this.snapshotName;
	}

	/**
	 * Returns when the server answered the slot's creation.
	 * @return the time
	 */
	public Instant createdAt() {
		return this.createdAt;
	}

	/**
	 * Returns the server's {@code server_version_num}.
	 * @return the version
	 */
	public int serverVersion() {
		return this.serverVersion;
	}

	/**
	 * Returns whether the snapshot can still be imported: the connection is neither
	 * closed nor taken.
	 * @return {@code true} while the connection is held idle
	 */
	public boolean isOpen() {
		return this.owned;
	}

	/**
	 * Hands the replication connection over to the caller, who owns it from now on. Its
	 * next command ends the exported snapshot, so call this only after every reader
	 * imported it.
	 * @return the connection
	 * @throws IllegalStateException if the connection was already taken or closed
	 */
	public Connection takeConnection() {
		if (!this.owned) {
			throw new IllegalStateException("The connection of snapshot " + this.snapshotName + " is no longer held");
		}
		this.owned = false;
		return this.connection;
	}

	/**
	 * Returns the connection for the hand-off's own commands, which run only once the
	 * snapshot is no longer needed.
	 */
	Connection connection() {
		return this.connection;
	}

	/**
	 * Closes the replication connection unless it was taken; the exported snapshot ends
	 * and a temporary slot is dropped. Idempotent.
	 */
	@Override
	public void close() {
		if (this.owned) {
			this.owned = false;
			closeQuietly(this.connection);
		}
	}

	private static void closeQuietly(@Nullable Connection connection) {
		if (connection == null) {
			return;
		}
		try {
			connection.close();
		}
		catch (SQLException ex) {
			logger.debug("Closing a snapshot's replication connection failed", ex);
		}
	}

	@Override
	public String toString() {
		return "ExportedSnapshot[slot=" + this.slotName + ", consistentPoint=" + this.consistentPoint + ", snapshot="
				+ this.snapshotName + "]";
	}

}
