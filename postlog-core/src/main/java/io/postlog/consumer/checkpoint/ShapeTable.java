package io.postlog.consumer.checkpoint;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

import io.postlog.PostlogException;
import io.postlog.admin.ConnectionLostException;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of the table beside a {@link CheckpointTable} where a transactional store keeps
 * the last known shape of each streamed table as of its checkpoint:
 * {@code <checkpoint table>_shapes}, one row per slot and table (relation OID), its shape
 * as the consumer's schema tracking writes it (column names, types and flags; never a row
 * value), so that a new process compares each table's first Relation message with the
 * shape as of the checkpoint. Rows are written in the sink transaction that moves the
 * checkpoint, so shapes and position commit together; a dropped table's row is deleted,
 * so the table holds about one row per published table.
 * <p>
 * A table of its own, like the {@link ChunkTable}, rather than a column of the checkpoint
 * table: a checkpoint table created by an earlier version (or by hand, with only the
 * privileges it needs) keeps working unchanged, this one is created when first written
 * (reading a missing one finds no shapes), and consumers that track no schema never
 * create it. Every method works on a connection the caller owns, in whatever transaction
 * is open on it, and never commits, rolls back or closes it. Immutable and thread-safe.
 */
public final class ShapeTable {

	/** What the table's name adds to the checkpoint table's. */
	public static final String SUFFIX = "_shapes";

	private final CheckpointTable names;

	private ShapeTable(CheckpointTable names) {
		this.names = names;
	}

	/**
	 * Returns the shape table beside a checkpoint table: same schema, the name with
	 * {@value #SUFFIX} added.
	 * @param checkpoint the checkpoint table
	 * @return the shape table
	 * @throws io.postlog.admin.InvalidIdentifierException if the name grows too long
	 */
	public static ShapeTable beside(CheckpointTable checkpoint) {
		return new ShapeTable(CheckpointTable.of(checkpoint.name() + SUFFIX, checkpoint.slotName()));
	}

	/**
	 * Returns the statement that creates the table.
	 * @return {@code CREATE TABLE IF NOT EXISTS ...}
	 */
	public String ddl() {
		return "CREATE TABLE IF NOT EXISTS " + this.names.quoted() + " (slot_name text NOT NULL,"
				+ " relation_id bigint NOT NULL, shape text NOT NULL, updated_at timestamptz NOT NULL,"
				+ " PRIMARY KEY (slot_name, relation_id))";
	}

	/**
	 * Makes sure the table exists, creating it when missing if allowed.
	 * @param connection the connection
	 * @param create whether to create a missing table
	 * @throws CheckpointStoreException if the table is missing and may not or could not
	 * be created
	 */
	public void ensure(Connection connection, boolean create) {
		this.names.ensureBeside(connection, create, "shape table", ddl());
	}

	/**
	 * Writes shapes in the connection's open transaction: each one replaces its table's
	 * row, and a {@code null} shape deletes it.
	 * @param connection the connection, inside the sink transaction
	 * @param shapes the shapes by relation OID
	 * @throws CheckpointStoreException if writing fails
	 * @throws ConnectionLostException if the connection failed
	 */
	public void write(Connection connection, Map<Long, @Nullable String> shapes) {
		try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO " + this.names.quoted()
				+ " (slot_name, relation_id, shape, updated_at) VALUES (?, ?, ?, clock_timestamp())"
				+ " ON CONFLICT (slot_name, relation_id) DO UPDATE SET shape = EXCLUDED.shape,"
				+ " updated_at = EXCLUDED.updated_at");
				PreparedStatement delete = connection.prepareStatement(
						"DELETE FROM " + this.names.quoted() + " WHERE slot_name = ? AND relation_id = ?")) {
			for (Map.Entry<Long, @Nullable String> entry : shapes.entrySet()) {
				String shape = entry.getValue();
				PreparedStatement statement = (shape != null) ? upsert : delete;
				statement.setString(1, this.names.slotName());
				statement.setLong(2, entry.getKey());
				if (shape != null) {
					statement.setString(3, shape);
				}
				statement.executeUpdate();
			}
		}
		catch (SQLException ex) {
			throw failure("Writing the table shapes", ex);
		}
	}

	/**
	 * Reads the slot's shapes; a missing table holds none.
	 * @param connection the connection
	 * @return the shapes by relation OID
	 * @throws CheckpointStoreException if reading fails
	 * @throws ConnectionLostException if the connection failed
	 */
	public Map<Long, String> read(Connection connection) {
		Map<Long, String> shapes = new HashMap<>();
		try {
			if (!this.names.exists(connection)) {
				return shapes;
			}
			try (PreparedStatement statement = connection
				.prepareStatement("SELECT relation_id, shape FROM " + this.names.quoted() + " WHERE slot_name = ?")) {
				statement.setString(1, this.names.slotName());
				try (ResultSet row = statement.executeQuery()) {
					while (row.next()) {
						shapes.put(row.getLong(1), row.getString(2));
					}
				}
			}
		}
		catch (SQLException ex) {
			throw failure("Reading the table shapes", ex);
		}
		return shapes;
	}

	private PostlogException failure(String what, SQLException ex) {
		return this.names.failure(what, ex);
	}

	@Override
	public String toString() {
		return "shape table " + this.names.printableName() + " (slot " + this.names.slotName() + ")";
	}

}
