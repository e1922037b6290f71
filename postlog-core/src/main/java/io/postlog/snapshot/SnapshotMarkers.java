package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.InsufficientPrivilegeException;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PgIdentifiers;
import org.jspecify.annotations.Nullable;

/**
 * The durable markers of a snapshot taken with a permanent slot (PostgreSQL 10 and 11,
 * which cannot copy a slot, and every resumable snapshot): one row per slot in a small
 * table, {@code started} before the permanent slot is created with its exported snapshot,
 * {@code planned} once a resumable snapshot recorded its chunks, and {@code complete}
 * once every snapshot row was delivered. A slot whose row still says {@code started}
 * holds a partial snapshot that cannot be resumed; one that says {@code planned} a
 * partial snapshot whose chunks not done are read as a backfill. Over a borrowed
 * auto-commit connection; not thread-safe.
 */
final class SnapshotMarkers {

	static final String STARTED = "started";

	static final String COMPLETE = "complete";

	/**
	 * A resumable snapshot recorded its chunks: what it did not deliver is read again as
	 * a backfill.
	 */
	static final String PLANNED = "planned";

	private final Connection connection;

	private final TableId table;

	private final String quotedTable;

	SnapshotMarkers(Connection connection, TableId table) {
		this.connection = connection;
		this.table = table;
		this.quotedTable = PgIdentifiers.quote(table);
	}

	void ensureTable() {
		run("create the snapshot marker table " + this.table,
				"CREATE TABLE IF NOT EXISTS " + this.quotedTable + " (slot_name text PRIMARY KEY,"
						+ " state text NOT NULL, consistent_point pg_lsn, updated_at timestamptz NOT NULL)");
	}

	/**
	 * Returns the slot's marker: {@link #STARTED}, {@link #COMPLETE}, or empty when there
	 * is none (or no table yet).
	 */
	Optional<String> state(String slotName) {
		if (!tableExists()) {
			return Optional.empty();
		}
		try (PreparedStatement statement = this.connection
			.prepareStatement("SELECT state FROM " + this.quotedTable + " WHERE slot_name = ?")) {
			statement.setString(1, slotName);
			try (ResultSet row = statement.executeQuery()) {
				return row.next() ? Optional.of(row.getString(1)) : Optional.empty();
			}
		}
		catch (SQLException ex) {
			throw failure("read the snapshot marker of slot '" + slotName + "' in " + this.table, ex);
		}
	}

	void started(String slotName) {
		update("mark the snapshot of slot '" + slotName + "' started",
				"INSERT INTO " + this.quotedTable + " (slot_name, state, consistent_point, updated_at) VALUES (?, '"
						+ STARTED + "', NULL, now())" + " ON CONFLICT (slot_name) DO UPDATE SET state = EXCLUDED.state,"
						+ " consistent_point = NULL, updated_at = now()",
				slotName, null);
	}

	void consistentPoint(String slotName, Lsn consistentPoint) {
		update("record the consistent point of slot '" + slotName + "'",
				"UPDATE " + this.quotedTable
						+ " SET consistent_point = ?::pg_lsn, updated_at = now() WHERE slot_name = ?",
				consistentPoint.toString(), slotName);
	}

	/**
	 * Marks the snapshot's chunks recorded.
	 * @return whether the slot's marker said {@link #STARTED}
	 */
	boolean planned(String slotName) {
		return update(
				"mark the snapshot of slot '" + slotName + "' planned", "UPDATE " + this.quotedTable + " SET state = '"
						+ PLANNED + "', updated_at = now()" + " WHERE slot_name = ? AND state = '" + STARTED + "'",
				slotName, null) == 1;
	}

	/**
	 * Marks the snapshot complete.
	 * @return whether the slot's marker said {@link #STARTED} or {@link #PLANNED}
	 */
	boolean complete(String slotName) {
		return update("mark the snapshot of slot '" + slotName + "' complete",
				"UPDATE " + this.quotedTable + " SET state = '" + COMPLETE + "', updated_at = now()"
						+ " WHERE slot_name = ? AND state IN ('" + STARTED + "', '" + PLANNED + "')",
				slotName, null) == 1;
	}

	void delete(String slotName) {
		if (tableExists()) {
			update("delete the snapshot marker of slot '" + slotName + "'",
					"DELETE FROM " + this.quotedTable + " WHERE slot_name = ?", slotName, null);
		}
	}

	private boolean tableExists() {
		try (PreparedStatement statement = this.connection.prepareStatement("SELECT 1 FROM pg_catalog.pg_class c"
				+ " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ?")) {
			statement.setString(1, this.table.schema());
			statement.setString(2, this.table.name());
			try (ResultSet row = statement.executeQuery()) {
				return row.next();
			}
		}
		catch (SQLException ex) {
			throw failure("look up the snapshot marker table " + this.table, ex);
		}
	}

	private int update(String action, String sql, String first, @Nullable String second) {
		try (PreparedStatement statement = this.connection.prepareStatement(sql)) {
			statement.setString(1, first);
			if (second != null) {
				statement.setString(2, second);
			}
			return statement.executeUpdate();
		}
		catch (SQLException ex) {
			throw failure(action + " in " + this.table, ex);
		}
	}

	private void run(String action, String sql) {
		try (Statement statement = this.connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw failure(action, ex);
		}
	}

	private PostlogException failure(String action, SQLException ex) {
		if (PgErrors.isInsufficientPrivilege(ex)) {
			return new InsufficientPrivilegeException("(connecting role)",
					action + " (before PostgreSQL 12 an initial snapshot records its progress in a table of its own)",
					ex);
		}
		return new SnapshotException("Could not " + action + " (SQLState " + PgErrors.sqlState(ex) + ")", ex);
	}

}
