package io.postlog.consumer.checkpoint;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.admin.ConnectionLostException;
import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PgIdentifiers;

/**
 * The SQL of a checkpoint table, one row per slot:
 * {@code (slot_name text primary key, commit_lsn pg_lsn not null, updated_at timestamptz
 * not null)}. The table name is validated and quoted ({@code table} or
 * {@code schema.table}; an unqualified name is found through the connection's
 * {@code search_path}); the slot name and positions are bound as parameters. Every method
 * works on a connection the caller owns, in whatever transaction the caller has open on
 * it, and never commits, rolls back or closes it.
 * <p>
 * A write is a compare-and-set: it succeeds only while the row still holds the checkpoint
 * the caller last read or wrote, so two consumers of one slot (a replica taking the slot
 * over while another still delivers) can never both commit the same source transaction;
 * the loser gets a {@link CheckpointConflictException}. Immutable and thread-safe.
 */
public final class CheckpointTable {

	/** The table's name unless configured otherwise. */
	public static final String DEFAULT_NAME = "postlog_checkpoint";

	private final String name;

	private final String quoted;

	private final String slotName;

	private CheckpointTable(String name, String quoted, String slotName) {
		this.name = name;
		this.quoted = quoted;
		this.slotName = slotName;
	}

	/**
	 * Returns the checkpoint table of a slot.
	 * @param table {@code table} or {@code schema.table}, names as they are stored (no
	 * quotes, case kept)
	 * @param slotName the slot whose row this is
	 * @return the table
	 * @throws InvalidIdentifierException if a name is not valid
	 */
	public static CheckpointTable of(String table, String slotName) {
		PgIdentifiers.requireSlotName(slotName);
		if (table == null) {
			throw new InvalidIdentifierException("table", "null", "the name is empty");
		}
		int dot = table.indexOf('.');
		String quoted;
		if (dot < 0) {
			quoted = PgIdentifiers.quote("table", table);
		}
		else {
			if (table.indexOf('.', dot + 1) >= 0) {
				throw new InvalidIdentifierException("table", table, "expected table or schema.table");
			}
			quoted = PgIdentifiers.quote("schema", table.substring(0, dot)) + "."
					+ PgIdentifiers.quote("table", table.substring(dot + 1));
		}
		return new CheckpointTable(table, quoted, slotName);
	}

	/**
	 * Returns the table's name as configured.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Returns the slot whose row this is.
	 * @return the slot name
	 */
	public String slotName() {
		return this.slotName;
	}

	/**
	 * Returns the statement that creates the table.
	 * @return {@code CREATE TABLE IF NOT EXISTS ...}
	 */
	public String ddl() {
		return "CREATE TABLE IF NOT EXISTS " + this.quoted
				+ " (slot_name text PRIMARY KEY, commit_lsn pg_lsn NOT NULL, updated_at timestamptz NOT NULL)";
	}

	/**
	 * Makes sure the table exists with the columns postlog uses, creating it when missing
	 * if allowed.
	 * @param connection the connection
	 * @param create whether to create a missing table
	 * @throws CheckpointStoreException if the table is missing (and may not or could not
	 * be created) or lacks a column
	 */
	public void ensure(Connection connection, boolean create) {
		try {
			if (!exists(connection)) {
				if (!create) {
					throw new CheckpointStoreException(
							"The checkpoint table " + printableName() + " of slot " + this.slotName
									+ " does not exist, and creating it is not allowed; create it with: " + ddl(),
							null);
				}
				try (Statement statement = connection.createStatement()) {
					statement.execute(ddl());
				}
			}
			try (Statement statement = connection.createStatement()) {
				statement.execute("SELECT slot_name, commit_lsn, updated_at FROM " + this.quoted + " WHERE false");
			}
		}
		catch (SQLException ex) {
			if (PgErrors.isInsufficientPrivilege(ex)) {
				throw new CheckpointStoreException("The role may not create or read the checkpoint table "
						+ printableName() + " of slot " + this.slotName + " (" + PgErrors.describe(ex)
						+ "); create it with " + ddl() + " and grant SELECT, INSERT, UPDATE on it", ex);
			}
			throw failure("Setting up the checkpoint table", ex);
		}
	}

	/**
	 * Reads the slot's checkpoint.
	 * @param connection the connection
	 * @return the commit LSN of the last source transaction whose sink transaction
	 * committed, or {@link Lsn#INVALID} when there is none yet
	 * @throws CheckpointStoreException if reading fails
	 * @throws ConnectionLostException if the connection failed
	 */
	public Lsn read(Connection connection) {
		try (PreparedStatement statement = connection
			.prepareStatement("SELECT commit_lsn::text FROM " + this.quoted + " WHERE slot_name = ?")) {
			statement.setString(1, this.slotName);
			try (ResultSet result = statement.executeQuery()) {
				return result.next() ? Lsn.parse(result.getString(1)) : Lsn.INVALID;
			}
		}
		catch (SQLException ex) {
			throw failure("Reading the checkpoint", ex);
		}
	}

	/**
	 * Moves the slot's checkpoint from {@code expected} to {@code commitLsn} in the
	 * connection's open transaction. With neither valid (a sink transaction of snapshot
	 * rows only, before any checkpoint) nothing is written.
	 * @param connection the connection, inside the sink transaction
	 * @param expected the checkpoint last read or written, {@link Lsn#INVALID} for none
	 * @param commitLsn the new checkpoint
	 * @throws CheckpointConflictException if the row no longer holds {@code expected}
	 * @throws CheckpointStoreException if writing fails
	 * @throws ConnectionLostException if the connection failed
	 */
	public void write(Connection connection, Lsn expected, Lsn commitLsn) {
		if (!expected.isValid() && !commitLsn.isValid()) {
			return;
		}
		int rows;
		try {
			if (expected.isValid()) {
				try (PreparedStatement statement = connection.prepareStatement(
						"UPDATE " + this.quoted + " SET commit_lsn = ?::pg_lsn, updated_at = clock_timestamp()"
								+ " WHERE slot_name = ? AND commit_lsn = ?::pg_lsn")) {
					statement.setString(1, commitLsn.toString());
					statement.setString(2, this.slotName);
					statement.setString(3, expected.toString());
					rows = statement.executeUpdate();
				}
			}
			else {
				try (PreparedStatement statement = connection.prepareStatement("INSERT INTO " + this.quoted
						+ " (slot_name, commit_lsn, updated_at) VALUES (?, ?::pg_lsn, clock_timestamp())"
						+ " ON CONFLICT DO NOTHING")) {
					statement.setString(1, this.slotName);
					statement.setString(2, commitLsn.toString());
					rows = statement.executeUpdate();
				}
			}
		}
		catch (SQLException ex) {
			throw failure("Writing the checkpoint", ex);
		}
		if (rows != 1) {
			throw new CheckpointConflictException(printableName(), this.slotName, expected, commitLsn);
		}
	}

	/**
	 * Makes sure a table kept beside the checkpoint table, which this one names, exists,
	 * creating it when missing if allowed.
	 * @param connection the connection
	 * @param create whether to create a missing table
	 * @param what what the table is, for messages ("chunk table")
	 * @param ddl the statement that creates it
	 * @throws CheckpointStoreException if the table is missing and may not or could not
	 * be created
	 */
	void ensureBeside(Connection connection, boolean create, String what, String ddl) {
		try {
			if (!exists(connection)) {
				if (!create) {
					throw new CheckpointStoreException("The " + what + " " + printableName() + " of slot "
							+ this.slotName + " does not exist, and creating it is not allowed; create it with: " + ddl,
							null);
				}
				try (Statement statement = connection.createStatement()) {
					statement.execute(ddl);
				}
			}
		}
		catch (SQLException ex) {
			if (PgErrors.isInsufficientPrivilege(ex)) {
				throw new CheckpointStoreException("The role may not create or read the " + what + " " + printableName()
						+ " of slot " + this.slotName + " (" + PgErrors.describe(ex) + "); create it with " + ddl
						+ " and grant SELECT, INSERT, UPDATE, DELETE on it", ex);
			}
			throw failure("Setting up the " + what, ex);
		}
	}

	boolean exists(Connection connection) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
			statement.setString(1, this.quoted);
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				return result.getBoolean(1);
			}
		}
	}

	/**
	 * Translates a failure on the sink's connection: a lost connection is retried without
	 * a limit, like a lost replication connection; the message is value-free.
	 */
	public PostlogException failure(String what, SQLException ex) {
		String message = what + " of slot " + this.slotName + " in table " + printableName() + " failed ("
				+ PgErrors.describe(ex) + ")";
		if (PgErrors.isConnectionFailure(ex)) {
			return new ConnectionLostException(message, ex);
		}
		return new CheckpointStoreException(message, ex);
	}

	String quoted() {
		return this.quoted;
	}

	String printableName() {
		return PgIdentifiers.printable(this.name);
	}

	@Override
	public String toString() {
		return "checkpoint table " + printableName() + " (slot " + this.slotName + ")";
	}

}
