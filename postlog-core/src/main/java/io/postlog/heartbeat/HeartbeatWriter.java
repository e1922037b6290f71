package io.postlog.heartbeat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.admin.ReplicationAdmin;

/**
 * Writes heartbeats: on PostgreSQL 14+ a non-transactional logical message (no table,
 * nothing to publish); before 14 an upsert of the slot's row in the heartbeat table,
 * which must be in the slot's publication to come back through the stream. Each write is
 * its own statement on an auto-commit connection. The sequence is shared by every write
 * of this writer. Thread-safe; the connection passed to a call is borrowed for it.
 */
public final class HeartbeatWriter {

	/** The heartbeat table used unless configured otherwise. */
	public static final TableId DEFAULT_TABLE = new TableId("public", "postlog_heartbeat");

	/** The first version that can write logical messages. */
	public static final int MESSAGES_VERSION = 140000;

	private final String slotName;

	private final String instance;

	private final TableId table;

	private final Clock clock;

	private final AtomicLong sequence = new AtomicLong();

	private volatile int serverVersion;

	/**
	 * Creates a writer.
	 * @param slotName the slot whose reader should see the heartbeats
	 * @param instance this process's id ({@link HeartbeatTracker#instance()})
	 * @param table the heartbeat table, used before PostgreSQL 14
	 */
	public HeartbeatWriter(String slotName, String instance, TableId table) {
		this(slotName, instance, table, Clock.systemUTC());
	}

	HeartbeatWriter(String slotName, String instance, TableId table, Clock clock) {
		this.slotName = PgIdentifiers.requireSlotName(slotName);
		this.instance = Objects.requireNonNull(instance, "instance");
		this.table = Objects.requireNonNull(table, "table");
		PgIdentifiers.quote(table);
		this.clock = clock;
	}

	/**
	 * Returns whether heartbeats on a server of this version are table updates.
	 * @param serverVersion the {@code server_version_num}
	 * @return {@code true} before PostgreSQL 14
	 */
	public static boolean usesTable(int serverVersion) {
		return serverVersion < MESSAGES_VERSION;
	}

	/**
	 * Creates the heartbeat table if it does not exist:
	 * {@code (slot_name text PRIMARY KEY, instance text, sequence bigint, emitted_at
	 * timestamptz)}, one row per slot.
	 * @param connection a connection to the slot's database
	 * @throws PostlogException if the table cannot be created
	 */
	public void ensureTable(Connection connection) {
		ensureTable(connection, this.table);
	}

	/**
	 * Creates a heartbeat table if it does not exist, as {@link #ensureTable(Connection)}
	 * does.
	 * @param connection a connection to the slot's database
	 * @param table the table
	 * @throws PostlogException if the table cannot be created
	 */
	public static void ensureTable(Connection connection, TableId table) {
		String sql = "CREATE TABLE IF NOT EXISTS " + PgIdentifiers.quote(table)
				+ " (slot_name text PRIMARY KEY, instance text NOT NULL, sequence bigint NOT NULL,"
				+ " emitted_at timestamptz NOT NULL)";
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not create heartbeat table " + table, ex);
		}
	}

	/**
	 * Writes the next heartbeat.
	 * @param connection an auto-commit connection to the slot's database
	 * @return the heartbeat written
	 * @throws PostlogException if the write fails
	 */
	public Heartbeat write(Connection connection) {
		Heartbeat heartbeat = new Heartbeat(this.slotName, this.instance, this.sequence.incrementAndGet(),
				Instant.now(this.clock).truncatedTo(ChronoUnit.MILLIS));
		try {
			if (usesTable(serverVersion(connection))) {
				upsert(connection, heartbeat);
			}
			else {
				emitMessage(connection, heartbeat);
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not write a heartbeat for slot '" + this.slotName + "'", ex);
		}
		return heartbeat;
	}

	private int serverVersion(Connection connection) {
		if (this.serverVersion == 0) {
			this.serverVersion = new ReplicationAdmin(connection).serverVersion();
		}
		return this.serverVersion;
	}

	private static void emitMessage(Connection connection, Heartbeat heartbeat) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT pg_logical_emit_message(false, ?, ?)")) {
			statement.setString(1, Heartbeat.PREFIX);
			statement.setBytes(2, heartbeat.content());
			statement.executeQuery().close();
		}
	}

	private void upsert(Connection connection, Heartbeat heartbeat) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("INSERT INTO " + PgIdentifiers.quote(this.table)
				+ " (slot_name, instance, sequence, emitted_at) VALUES (?, ?, ?, ?) ON CONFLICT (slot_name) DO UPDATE"
				+ " SET instance = EXCLUDED.instance, sequence = EXCLUDED.sequence, emitted_at = EXCLUDED.emitted_at")) {
			statement.setString(1, heartbeat.slotName());
			statement.setString(2, heartbeat.instance());
			statement.setLong(3, heartbeat.sequence());
			statement.setObject(4, OffsetDateTime.ofInstant(heartbeat.emittedAt(), ZoneOffset.UTC));
			statement.executeUpdate();
		}
	}

}
