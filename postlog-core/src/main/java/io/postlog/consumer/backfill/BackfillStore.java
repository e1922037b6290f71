package io.postlog.consumer.backfill;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.postlog.TableId;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PgIdentifiers;
import io.postlog.consumer.checkpoint.ChunkMark;
import io.postlog.snapshot.ChunkRange;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where backfills record their progress: one row per slot, backfill and part (a table, or
 * for a resumable initial snapshot one of its chunks, whose range the row holds as
 * numbers), holding the text of the last key delivered and acknowledged, the rows done
 * and whether the part is done. Written after each chunk every subscription finished, so
 * a restart resumes at the next chunk; a chunk whose progress was not written yet is read
 * again. Stateless; callers pass the connection.
 */
final class BackfillStore {

	private static final Logger logger = LoggerFactory.getLogger(BackfillStore.class);

	/** How the id of a resumable initial snapshot's backfill begins. */
	static final String SNAPSHOT_PREFIX = "snapshot-";

	private final TableId table;

	private final String quoted;

	private final String slotName;

	BackfillStore(TableId table, String slotName) {
		this.table = table;
		this.quoted = PgIdentifiers.quote(table);
		this.slotName = slotName;
	}

	TableId table() {
		return this.table;
	}

	/**
	 * Creates the progress table if it is missing; on a connection in auto-commit, so
	 * that a creation raced by another session (a backfill submitted while the runner
	 * resumes others) is run once more and finds the table.
	 * @param connection the connection, in auto-commit
	 * @throws SQLException if the table cannot be created
	 */
	void create(Connection connection) throws SQLException {
		String create = "CREATE TABLE IF NOT EXISTS " + this.quoted + " (slot_name text NOT NULL,"
				+ " backfill_id text NOT NULL, ordinal int NOT NULL, table_schema text NOT NULL,"
				+ " table_name text NOT NULL, after_key text[], rows_done bigint NOT NULL DEFAULT 0,"
				+ " done boolean NOT NULL DEFAULT false, updated_at timestamptz NOT NULL DEFAULT now(),"
				+ " chunk_kind text, chunk_column text, chunk_from bigint, chunk_to bigint,"
				+ " PRIMARY KEY (slot_name, backfill_id, ordinal))";
		// Tables made before snapshots resumed lack the chunk columns.
		String alter = "ALTER TABLE " + this.quoted + " ADD COLUMN IF NOT EXISTS chunk_kind text,"
				+ " ADD COLUMN IF NOT EXISTS chunk_column text, ADD COLUMN IF NOT EXISTS chunk_from bigint,"
				+ " ADD COLUMN IF NOT EXISTS chunk_to bigint";
		try (Statement statement = connection.createStatement()) {
			try {
				statement.execute(create);
			}
			catch (SQLException ex) {
				if (!PgErrors.isConcurrentCreation(ex) || !connection.getAutoCommit()) {
					throw ex;
				}
				logger.debug("Backfill progress table {} was created by another session at the same moment ({})",
						this.table, PgErrors.sqlState(ex));
				statement.execute(create);
			}
			if (!hasChunkColumns(connection)) {
				statement.execute(alter);
			}
		}
	}

	private boolean hasChunkColumns(Connection connection) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM pg_catalog.pg_attribute a"
				+ " JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n"
				+ " ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ? AND a.attname = 'chunk_to'"
				+ " AND NOT a.attisdropped")) {
			statement.setString(1, this.table.schema());
			statement.setString(2, this.table.name());
			try (ResultSet row = statement.executeQuery()) {
				return row.next();
			}
		}
	}

	/**
	 * Records the chunks of a resumable initial snapshot as the parts of a backfill, in
	 * one transaction, after removing any earlier snapshot of the slot.
	 * @param connection the connection, in auto-commit (left in it)
	 * @param backfillId the snapshot's backfill id
	 * @param chunks the chunks
	 * @throws SQLException if they cannot be recorded
	 */
	void insertSnapshot(Connection connection, String backfillId, List<ChunkRange> chunks) throws SQLException {
		connection.setAutoCommit(false);
		try {
			try (PreparedStatement statement = connection.prepareStatement("DELETE FROM " + this.quoted
					+ " WHERE slot_name = ? AND backfill_id LIKE '" + SNAPSHOT_PREFIX + "%'")) {
				statement.setString(1, this.slotName);
				statement.executeUpdate();
			}
			try (PreparedStatement statement = connection.prepareStatement("INSERT INTO " + this.quoted
					+ " (slot_name, backfill_id, ordinal, table_schema, table_name, chunk_kind, chunk_column,"
					+ " chunk_from, chunk_to) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
				for (int i = 0; i < chunks.size(); i++) {
					ChunkRange chunk = chunks.get(i);
					statement.setString(1, this.slotName);
					statement.setString(2, backfillId);
					statement.setInt(3, i);
					statement.setString(4, chunk.table().schema());
					statement.setString(5, chunk.table().name());
					statement.setString(6, chunk.kind().name());
					statement.setString(7, chunk.column());
					statement.setObject(8, chunk.from(), java.sql.Types.BIGINT);
					statement.setObject(9, chunk.to(), java.sql.Types.BIGINT);
					statement.addBatch();
				}
				statement.executeBatch();
			}
			connection.commit();
		}
		finally {
			if (!connection.getAutoCommit()) {
				connection.rollback();
				connection.setAutoCommit(true);
			}
		}
	}

	void insert(Connection connection, String backfillId, List<TableId> tables) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("INSERT INTO " + this.quoted
				+ " (slot_name, backfill_id, ordinal, table_schema, table_name) VALUES (?, ?, ?, ?, ?)")) {
			for (int i = 0; i < tables.size(); i++) {
				TableId table = tables.get(i);
				statement.setString(1, this.slotName);
				statement.setString(2, backfillId);
				statement.setInt(3, i);
				statement.setString(4, table.schema());
				statement.setString(5, table.name());
				statement.addBatch();
			}
			statement.executeBatch();
		}
	}

	/**
	 * Returns the slot's backfills with a table not done yet, oldest first.
	 */
	List<Stored> unfinished(Connection connection) throws SQLException {
		Map<String, Stored> backfills = new LinkedHashMap<>();
		try (PreparedStatement statement = connection.prepareStatement("SELECT backfill_id, table_schema, table_name,"
				+ " after_key, rows_done, done, chunk_kind, chunk_column, chunk_from, chunk_to FROM " + this.quoted
				+ " WHERE slot_name = ? AND backfill_id IN" + " (SELECT backfill_id FROM " + this.quoted
				+ " WHERE slot_name = ? AND NOT done)" + " ORDER BY (SELECT min(updated_at) FROM " + this.quoted
				+ " o WHERE o.slot_name = ?" + " AND o.backfill_id = " + this.quoted
				+ ".backfill_id), backfill_id, ordinal")) {
			statement.setString(1, this.slotName);
			statement.setString(2, this.slotName);
			statement.setString(3, this.slotName);
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					Stored stored = backfills.computeIfAbsent(row.getString(1), Stored::new);
					TableId table = new TableId(row.getString(2), row.getString(3));
					stored.tables.add(table);
					stored.ranges.add(range(table, stored.ranges.size(), row));
					Array key = row.getArray(4);
					stored.after.add((key != null) ? Arrays.asList((String[]) key.getArray()) : null);
					stored.rows.add(row.getLong(5));
					stored.done.add(row.getBoolean(6));
				}
			}
		}
		return new ArrayList<>(backfills.values());
	}

	private static @Nullable ChunkRange range(TableId table, int index, ResultSet row) throws SQLException {
		String kind = row.getString(7);
		if (kind == null) {
			return null;
		}
		Long from = row.getObject(9, Long.class);
		Long to = row.getObject(10, Long.class);
		try {
			return new ChunkRange(table, index, ChunkRange.Kind.valueOf(kind), row.getString(8), from, to);
		}
		catch (IllegalArgumentException ex) {
			// A range this version cannot read is read whole: a superset is safe.
			logger.warn("Backfill part of {} has an unknown range ({}); reading the whole table", table,
					ex.getMessage());
			return ChunkRange.whole(table);
		}
	}

	void save(Connection connection, String backfillId, int ordinal, @Nullable List<String> after, long rows,
			boolean done) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(
				"UPDATE " + this.quoted + " SET after_key = ?, rows_done = ?, done = ?, updated_at = now()"
						+ " WHERE slot_name = ? AND backfill_id = ? AND ordinal = ?")) {
			statement.setArray(1, (after != null) ? connection.createArrayOf("text", after.toArray()) : null);
			statement.setLong(2, rows);
			statement.setBoolean(3, done);
			statement.setString(4, this.slotName);
			statement.setString(5, backfillId);
			statement.setInt(6, ordinal);
			statement.executeUpdate();
		}
	}

	void delete(Connection connection, String backfillId) throws SQLException {
		try (PreparedStatement statement = connection
			.prepareStatement("DELETE FROM " + this.quoted + " WHERE slot_name = ? AND backfill_id = ?")) {
			statement.setString(1, this.slotName);
			statement.setString(2, backfillId);
			statement.executeUpdate();
		}
	}

	/**
	 * A backfill as recorded.
	 */
	static final class Stored {

		final String id;

		final List<TableId> tables = new ArrayList<>();

		final List<@Nullable List<String>> after = new ArrayList<>();

		final List<@Nullable ChunkRange> ranges = new ArrayList<>();

		final List<Long> rows = new ArrayList<>();

		final List<Boolean> done = new ArrayList<>();

		Stored(String id) {
			this.id = id;
		}

		/**
		 * Takes what the sink committed over this record, with a transactional store: a
		 * chunk's mark commits with its rows, the progress row only after.
		 * @param marks the sink's chunk marks of this backfill, by part
		 */
		void take(Map<Integer, ChunkMark> marks) {
			for (ChunkMark mark : marks.values()) {
				int i = mark.ordinal();
				if (i < 0 || i >= this.tables.size() || this.done.get(i)) {
					continue;
				}
				if (mark.done()) {
					this.done.set(i, true);
				}
				else if (mark.afterKey() != null) {
					this.after.set(i, mark.afterKey());
				}
			}
		}

	}

}
