package io.postlog.consumer.checkpoint;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.postlog.PostlogException;
import io.postlog.admin.ConnectionLostException;

/**
 * The SQL of the table beside a {@link CheckpointTable} where a transactional store marks
 * the chunks of snapshots and backfills it committed: {@code <checkpoint table>_chunks},
 * one row per slot, backfill and part ({@link ChunkMark}). A mark is written in the sink
 * transaction of the chunk's rows, so a chunk's rows and its mark commit together. Every
 * method works on a connection the caller owns, in whatever transaction is open on it,
 * and never commits, rolls back or closes it. Immutable and thread-safe.
 */
public final class ChunkTable {

	/** What the table's name adds to the checkpoint table's. */
	public static final String SUFFIX = "_chunks";

	private final CheckpointTable names;

	private ChunkTable(CheckpointTable names) {
		this.names = names;
	}

	/**
	 * Returns the chunk table beside a checkpoint table: same schema, the name with
	 * {@value #SUFFIX} added.
	 * @param checkpoint the checkpoint table
	 * @return the chunk table
	 * @throws io.postlog.admin.InvalidIdentifierException if the name grows too long
	 */
	public static ChunkTable beside(CheckpointTable checkpoint) {
		return new ChunkTable(CheckpointTable.of(checkpoint.name() + SUFFIX, checkpoint.slotName()));
	}

	/**
	 * Returns the statement that creates the table.
	 * @return {@code CREATE TABLE IF NOT EXISTS ...}
	 */
	public String ddl() {
		return "CREATE TABLE IF NOT EXISTS " + this.names.quoted() + " (slot_name text NOT NULL,"
				+ " backfill_id text NOT NULL, ordinal int NOT NULL, after_key text[], done boolean NOT NULL,"
				+ " updated_at timestamptz NOT NULL, PRIMARY KEY (slot_name, backfill_id, ordinal))";
	}

	/**
	 * Makes sure the table exists, creating it when missing if allowed.
	 * @param connection the connection
	 * @param create whether to create a missing table
	 * @throws CheckpointStoreException if the table is missing and may not or could not
	 * be created
	 */
	public void ensure(Connection connection, boolean create) {
		this.names.ensureBeside(connection, create, "chunk table", ddl());
	}

	/**
	 * Writes a mark in the connection's open transaction, replacing the part's last one.
	 * @param connection the connection, inside the sink transaction
	 * @param mark the mark
	 * @throws CheckpointStoreException if writing fails
	 * @throws ConnectionLostException if the connection failed
	 */
	public void write(Connection connection, ChunkMark mark) {
		try (PreparedStatement statement = connection.prepareStatement(
				"INSERT INTO " + this.names.quoted() + " (slot_name, backfill_id, ordinal, after_key, done, updated_at)"
						+ " VALUES (?, ?, ?, ?, ?, clock_timestamp()) ON CONFLICT (slot_name, backfill_id, ordinal)"
						+ " DO UPDATE SET after_key = EXCLUDED.after_key, done = EXCLUDED.done,"
						+ " updated_at = EXCLUDED.updated_at")) {
			List<String> after = mark.afterKey();
			statement.setString(1, this.names.slotName());
			statement.setString(2, mark.backfillId());
			statement.setInt(3, mark.ordinal());
			statement.setArray(4, (after != null) ? connection.createArrayOf("text", after.toArray()) : null);
			statement.setBoolean(5, mark.done());
			statement.executeUpdate();
		}
		catch (SQLException ex) {
			throw failure("Marking a chunk done", ex);
		}
	}

	/**
	 * Reads the marks of a backfill.
	 * @param connection the connection
	 * @param backfillId the backfill
	 * @return its marks by part
	 * @throws CheckpointStoreException if reading fails
	 * @throws ConnectionLostException if the connection failed
	 */
	public Map<Integer, ChunkMark> read(Connection connection, String backfillId) {
		Map<Integer, ChunkMark> marks = new HashMap<>();
		try (PreparedStatement statement = connection.prepareStatement("SELECT ordinal, after_key, done FROM "
				+ this.names.quoted() + " WHERE slot_name = ? AND backfill_id = ?")) {
			statement.setString(1, this.names.slotName());
			statement.setString(2, backfillId);
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					Array key = row.getArray(2);
					List<String> after = (key != null) ? Arrays.asList((String[]) key.getArray()) : null;
					marks.put(row.getInt(1), new ChunkMark(backfillId, row.getInt(1), after, row.getBoolean(3)));
				}
			}
		}
		catch (SQLException ex) {
			throw failure("Reading the chunk marks", ex);
		}
		return marks;
	}

	/**
	 * Deletes the marks of a backfill that ended.
	 * @param connection the connection
	 * @param backfillId the backfill
	 * @throws CheckpointStoreException if deleting fails
	 * @throws ConnectionLostException if the connection failed
	 */
	public void delete(Connection connection, String backfillId) {
		try (PreparedStatement statement = connection
			.prepareStatement("DELETE FROM " + this.names.quoted() + " WHERE slot_name = ? AND backfill_id = ?")) {
			statement.setString(1, this.names.slotName());
			statement.setString(2, backfillId);
			statement.executeUpdate();
		}
		catch (SQLException ex) {
			throw failure("Deleting the chunk marks", ex);
		}
	}

	private PostlogException failure(String what, SQLException ex) {
		return this.names.failure(what, ex);
	}

	@Override
	public String toString() {
		return "chunk table " + this.names.printableName() + " (slot " + this.names.slotName() + ")";
	}

}
