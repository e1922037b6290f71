package io.postlog.snapshot;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.postlog.Lsn;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.types.ValueDecodingException;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * Reads a table for a backfill while the stream runs: one chunk at a time, in key order
 * after the last key read, each in a short read-only transaction of its own with binary
 * or text {@code COPY} (the stream's format, so that values decode and keys hash exactly
 * as the stream's do). A chunk read also reports which transactions its snapshot saw, and
 * waits out the moment in which a transaction's commit is in the WAL but not yet visible:
 * it takes a new snapshot when a transaction in progress for the snapshot has already
 * committed, or when the stream already delivered a transaction the snapshot does not see
 * (PostgreSQL makes a commit visible a moment after it flushed its WAL record, and the
 * stream can deliver it in between; a chunk row read without it would be older than a
 * change already given to the subscriptions). SQL holds quoted catalog names, numbers
 * and, for the key to read on from, the key's own text as string literals
 * ({@code standard_conforming_strings} on): no other text. Stateless; the connection is
 * the caller's and used by one thread at a time.
 */
public final class BackfillReader {

	private static final int VISIBILITY_ATTEMPTS = 300;

	private final ValueDecoders decoders;

	private final int serverVersion;

	/**
	 * Creates a reader.
	 * @param decoders the value decoders, the stream's
	 * @param serverVersion the server's {@code server_version_num}
	 */
	public BackfillReader(ValueDecoders decoders, int serverVersion) {
		this.decoders = decoders;
		this.serverVersion = serverVersion;
	}

	/**
	 * Reads a table's catalog: its published columns and its key.
	 * @param connection an ordinary connection
	 * @param table the table
	 * @param publication the publication whose column list and row filter apply, or
	 * {@code null}
	 * @return the table
	 * @throws KeylessTableException if it has no primary key and no replica identity
	 * index
	 * @throws BackfillRefusedException if it is partitioned
	 * @throws SnapshotReadException if it does not exist or is not published
	 * @throws SQLException if the catalog cannot be read
	 */
	public BackfillTable plan(Connection connection, TableId table, @Nullable String publication) throws SQLException {
		SnapshotOptions options = SnapshotOptions.defaults().withPublication(publication);
		TablePlan plan = new TablePlanner(connection, this.serverVersion, this.decoders, options).plan(table, false);
		if (plan.partitioned) {
			throw new BackfillRefusedException(table,
					"Table " + table + " is partitioned; backfill its partitions, whose changes the stream carries");
		}
		char identity = 'd';
		List<String> keyNames = new ArrayList<>();
		List<String> keyTypes = new ArrayList<>();
		try (PreparedStatement statement = connection.prepareStatement("SELECT c.relreplident, a.attname,"
				+ " pg_catalog.format_type(a.atttypid, NULL) FROM pg_catalog.pg_class c"
				+ " LEFT JOIN pg_catalog.pg_index i ON i.indrelid = c.oid"
				+ " AND CASE c.relreplident WHEN 'i' THEN i.indisreplident ELSE i.indisprimary END"
				+ " LEFT JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n) ON true"
				+ " LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum"
				+ " WHERE c.oid = ? ORDER BY k.n")) {
			statement.setLong(1, plan.oid);
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					identity = row.getString(1).charAt(0);
					if (row.getString(2) != null) {
						keyNames.add(row.getString(2));
						keyTypes.add(row.getString(3));
					}
				}
			}
		}
		if (keyNames.isEmpty()) {
			throw new KeylessTableException(table);
		}
		int[] positions = new int[keyNames.size()];
		for (int i = 0; i < positions.length; i++) {
			positions[i] = plan.columnNames.indexOf(keyNames.get(i));
			if (positions[i] < 0) {
				throw new BackfillRefusedException(table, "Key column '" + keyNames.get(i) + "' of table " + table
						+ " is not published (outside the publication's column list)");
			}
		}
		return new BackfillTable(plan, positions, keyTypes, identity == 'd' || identity == 'i',
				readShape(connection, plan, identity, keyNames));
	}

	/**
	 * Plans a table again when its columns changed since it was planned, so that each
	 * chunk reads the shape current when it is read (and its high watermark announces a
	 * change the stream has not shown yet): one catalog read when nothing changed. A
	 * table whose key columns changed keeps its plan, since the chunks go on after a key
	 * of the old one.
	 * @param connection an ordinary connection
	 * @param table the table as planned last
	 * @param publication the publication whose column list and row filter apply, or
	 * {@code null}
	 * @return the table planned again, or {@code table} itself when its published columns
	 * and their types are the same or its key changed
	 * @throws SQLException if the catalog cannot be read
	 */
	public BackfillTable replan(Connection connection, BackfillTable table, @Nullable String publication)
			throws SQLException {
		BackfillTable.ReadShape shape = table.readShape;
		if (shape != null && LiveColumns.same(connection, table.plan.oid, shape.relation().columns())) {
			return table;
		}
		BackfillTable planned = plan(connection, table.table(), publication);
		if (!planned.keyColumns().equals(table.keyColumns()) || planned.plan.oid != table.plan.oid
				|| (shape != null && planned.readShape != null
						&& planned.readShape.relation().columns().equals(shape.relation().columns()))) {
			return table;
		}
		return planned;
	}

	/**
	 * Reads the type modifiers of the planned columns and the WAL insert position after
	 * them, in one statement; {@code null} when the catalog no longer has a planned
	 * column with its type (a DDL ran while the table was planned).
	 */
	private static BackfillTable.@Nullable ReadShape readShape(Connection connection, TablePlan plan, char identity,
			List<String> keyNames) throws SQLException {
		Map<String, int[]> attributes = new HashMap<>();
		Lsn plannedAt = null;
		try (PreparedStatement statement = connection.prepareStatement("SELECT pg_catalog.pg_current_wal_lsn()::text,"
				+ " a.attname, a.atttypid, a.atttypmod FROM pg_catalog.pg_attribute a"
				+ " WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped")) {
			statement.setLong(1, plan.oid);
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					plannedAt = Lsn.parse(row.getString(1));
					attributes.put(row.getString(2), new int[] { (int) row.getLong(3), row.getInt(4) });
				}
			}
		}
		List<PgOutputMessage.Column> columns = new ArrayList<>(plan.columnNames.size());
		for (int i = 0; i < plan.columnNames.size(); i++) {
			String name = plan.columnNames.get(i);
			int[] attribute = attributes.get(name);
			if (attribute == null || attribute[0] != plan.typeOids[i]) {
				return null;
			}
			boolean key = identity == 'f' || (identity != 'n' && keyNames.contains(name));
			columns.add(new PgOutputMessage.Column(key ? 1 : 0, name, plan.typeOids[i], attribute[1]));
		}
		return (plannedAt != null) ? new BackfillTable.ReadShape(new PgOutputMessage.Relation(null, (int) plan.oid,
				plan.table.schema(), plan.table.name(), identity, columns), plannedAt) : null;
	}

	/**
	 * Reads the next chunk: at most {@code limit} rows after {@code after}, in key order.
	 * @param connection an ordinary connection in autocommit mode; left in it
	 * @param table the table
	 * @param after the key to read on from, in its text form, or {@code null} from the
	 * start
	 * @param limit the most rows
	 * @param binary whether to read binary values (as a binary stream sends them)
	 * @param delivered the ids of transactions the stream delivered before the read was
	 * announced, all of which the read must see
	 * @return the chunk
	 * @throws SnapshotReadException if a value does not decode, or if a transaction stays
	 * invisible
	 * @throws SQLException if the read fails
	 */
	public BackfillChunk read(Connection connection, BackfillTable table, @Nullable List<String> after, int limit,
			boolean binary, long[] delivered) throws SQLException, InterruptedException {
		return read(connection, table, null, after, limit, binary, delivered);
	}

	/**
	 * Reads the next chunk within a range of the table (a chunk an interrupted initial
	 * snapshot did not finish): at most {@code limit} rows of the range after
	 * {@code after}, in key order. A range of another table, or of a key column the table
	 * no longer publishes, is read as the whole table: a superset is safe, as the window
	 * lets the stream win.
	 * @param connection an ordinary connection in autocommit mode; left in it
	 * @param table the table
	 * @param range the range, or {@code null} for the whole table
	 * @param after the key to read on from, in its text form, or {@code null} from the
	 * start
	 * @param limit the most rows
	 * @param binary whether to read binary values (as a binary stream sends them)
	 * @param delivered the ids of transactions the stream delivered before the read was
	 * announced, all of which the read must see
	 * @return the chunk
	 * @throws SnapshotReadException if a value does not decode, or if a transaction stays
	 * invisible
	 * @throws SQLException if the read fails
	 */
	public BackfillChunk read(Connection connection, BackfillTable table, @Nullable ChunkRange range,
			@Nullable List<String> after, int limit, boolean binary, long[] delivered)
			throws SQLException, InterruptedException {
		return read(connection, table, range, after, limit, binary, delivered, (chunk) -> null);
	}

	/**
	 * Reads the next chunk within a range of the table, as
	 * {@link #read(Connection, BackfillTable, ChunkRange, List, int, boolean, long[])}
	 * does, and runs one more statement in the round trip of the read's {@code COMMIT},
	 * in a transaction of its own after it (the chunk's high watermark).
	 * @param connection an ordinary connection in autocommit mode; left in it
	 * @param table the table
	 * @param range the range, or {@code null} for the whole table
	 * @param after the key to read on from, in its text form, or {@code null} from the
	 * start
	 * @param limit the most rows
	 * @param binary whether to read binary values (as a binary stream sends them)
	 * @param delivered the ids of transactions the stream delivered before the read was
	 * announced, all of which the read must see
	 * @param afterCommit given the chunk read, before its transaction commits: the
	 * statement to run after the commit, or {@code null} for none
	 * @return the chunk
	 * @throws SnapshotReadException if a value does not decode, or if a transaction stays
	 * invisible
	 * @throws SQLException if the read or the statement fails
	 */
	public BackfillChunk read(Connection connection, BackfillTable table, @Nullable ChunkRange range,
			@Nullable List<String> after, int limit, boolean binary, long[] delivered,
			Function<BackfillChunk, @Nullable String> afterCommit) throws SQLException, InterruptedException {
		TablePlan plan = table.plan;
		String sql = ChunkSql.of(table, range, after, limit, binary);
		for (int attempt = 1;; attempt++) {
			boolean done = false;
			try {
				ReadVisibility visibility = ReadTransaction.beginAndSee(connection);
				if (visibility != null && !ReadTransaction.seesAll(visibility, delivered)) {
					visibility = null;
				}
				if (visibility == null && attempt < VISIBILITY_ATTEMPTS) {
					// A transaction committed but is not visible yet: its commit may lie
					// before the low watermark, so this snapshot could miss it.
					ReadTransaction.commit(connection, null);
					done = true;
					Thread.sleep(Math.min(attempt, 10));
					continue;
				}
				if (visibility == null) {
					throw new SnapshotReadException("Transactions committed before the backfill read of table "
							+ plan.table + " stayed invisible to it", plan.table, null, null);
				}
				BackfillChunk chunk = copy(connection, table, sql, binary, visibility);
				String then = afterCommit.apply(chunk);
				ReadTransaction.commit(connection, then);
				done = true;
				return chunk;
			}
			catch (Error error) {
				// Out of memory (or another error) inside the COPY: the connection is
				// still
				// in it, so a rollback would wait on it for ever, and nothing in this JVM
				// can be trusted to retry. The error ends the backfill's thread, which
				// fails
				// the consumer at once; its stop closes the connection.
				done = true;
				throw error;
			}
			finally {
				if (!done) {
					ReadTransaction.rollback(connection);
				}
			}
		}
	}

	/**
	 * Reads the current values of some columns of one row, by key: what an update that
	 * did not resend a TOASTed value left it at (or a later value).
	 * @param connection an ordinary connection in autocommit mode; left in it
	 * @param table the table
	 * @param key the row's key, as {@link BackfillTable#keyOf} gives it
	 * @param columns the columns to read
	 * @return the values in the order of {@code columns}, or {@code null} if the row no
	 * longer exists
	 * @throws SQLException if the read fails
	 */
	public @Nullable Object @Nullable [] current(Connection connection, BackfillTable table, List<@Nullable Object> key,
			List<String> columns) throws SQLException {
		TablePlan plan = table.plan;
		StringBuilder sql = new StringBuilder("SELECT ");
		int[] positions = new int[columns.size()];
		for (int i = 0; i < columns.size(); i++) {
			positions[i] = plan.columnNames.indexOf(columns.get(i));
			if (positions[i] < 0) {
				throw new IllegalArgumentException("Column '" + columns.get(i) + "' is not published");
			}
			sql.append((i > 0) ? ", " : "").append(PgIdentifiers.quote("column", columns.get(i))).append("::text");
		}
		sql.append(" FROM ").append(PgIdentifiers.quote(plan.table)).append(" WHERE ");
		for (int i = 0; i < table.keyPositions.length; i++) {
			// The type name is the catalog's own format_type text.
			sql.append((i > 0) ? " AND " : "")
				.append(PgIdentifiers.quote("column", plan.columnNames.get(table.keyPositions[i])))
				.append(" = CAST(? AS ")
				.append(table.keyTypes.get(i))
				.append(")");
		}
		ReadTransaction.begin(connection);
		boolean done = false;
		try (PreparedStatement statement = connection.prepareStatement(sql.toString())) {
			for (int i = 0; i < key.size(); i++) {
				Object value = key.get(i);
				statement.setObject(i + 1,
						(value instanceof java.nio.ByteBuffer buffer) ? bytes(buffer) : parameter(value));
			}
			@Nullable Object[] values = null;
			try (ResultSet row = statement.executeQuery()) {
				if (row.next()) {
					values = new Object[positions.length];
					for (int i = 0; i < positions.length; i++) {
						String text = row.getString(i + 1);
						values[i] = (text != null)
								? decode(plan, positions[i], text.getBytes(StandardCharsets.UTF_8), false, "a row")
								: null;
					}
				}
			}
			ReadTransaction.commit(connection, null);
			done = true;
			return values;
		}
		finally {
			if (!done) {
				ReadTransaction.rollback(connection);
			}
		}
	}

	private static @Nullable Object parameter(@Nullable Object value) {
		// Values pgjdbc cannot bind by type go as text, which the CAST reads.
		if (value == null || value instanceof Number || value instanceof String || value instanceof Boolean
				|| value instanceof java.util.UUID || value instanceof java.time.temporal.Temporal) {
			return (value instanceof java.time.OffsetDateTime || value instanceof java.time.OffsetTime
					|| value instanceof java.util.UUID) ? value.toString() : value;
		}
		return value.toString();
	}

	private static byte[] bytes(java.nio.ByteBuffer buffer) {
		byte[] bytes = new byte[buffer.remaining()];
		buffer.duplicate().get(bytes);
		return bytes;
	}

	private BackfillChunk copy(Connection connection, BackfillTable table, String sql, boolean binary,
			ReadVisibility visibility) throws SQLException {
		TablePlan plan = table.plan;
		CopyOut copy = connection.unwrap(PGConnection.class).getCopyAPI().copyOut(sql);
		CopyRows copyRows = CopyRows.of(new CopyInput(copy::readFromCopy), binary);
		int keys = keyTextFields(table);
		CopyFields fields = new CopyFields(keys + plan.columnNames.size());
		List<BackfillRow> rows = new ArrayList<>();
		byte[][] lastKey = null;
		int tableHash = plan.table.hashCode();
		try {
			while (copyRows.next(fields)) {
				rows.add(row(table, fields, binary, tableHash));
				if (keys > 0) {
					// The fields are slices of the data, valid until the next row: the
					// key's text is copied out.
					lastKey = new byte[keys][];
					for (int i = 0; i < keys; i++) {
						lastKey[i] = fields.copy(i);
					}
				}
			}
		}
		catch (RuntimeException | SQLException ex) {
			// A value that does not decode, or malformed data: the COPY may still
			// run, and the connection rolls back only once it has ended (pgjdbc
			// waits for it).
			discardRest(copy, ex);
			throw ex;
		}
		List<String> after = null;
		if (lastKey != null) {
			after = text(lastKey);
		}
		else if (!rows.isEmpty()) {
			after = table.keyText(rows.get(rows.size() - 1).key());
		}
		return new BackfillChunk(rows, after, visibility);
	}

	/**
	 * Returns how many fields of the key's text come before a chunk row's columns: none
	 * when the key's text is made from the row's values.
	 */
	private static int keyTextFields(BackfillTable table) {
		return table.keyTextFromValues ? 0 : table.keyPositions.length;
	}

	private BackfillRow row(BackfillTable table, CopyFields fields, boolean binary, int tableHash) {
		TablePlan plan = table.plan;
		int keys = keyTextFields(table);
		@Nullable Object[] values = new Object[plan.columnNames.size()];
		int bytes = 16;
		for (int i = 0; i < values.length; i++) {
			int field = keys + i;
			int length = fields.length(field);
			values[i] = (length >= 0)
					? decode(plan, i, fields.source(field), fields.offset(field), length, binary, "a backfill chunk")
					: null;
			bytes += (length >= 0) ? length + 4 : 4;
		}
		List<@Nullable Object> key = new ArrayList<>(keys);
		for (int position : table.keyPositions) {
			key.add(BackfillTable.keyValue(values[position]));
		}
		int route = tableHash;
		if (table.routesByKey) {
			for (int position : table.hashPositions) {
				route = 31 * route + fields.hash(keys + position);
			}
		}
		return new BackfillRow(Row.ofOwned(plan.columns, values), key, route, bytes);
	}

	private static void discardRest(CopyOut copy, Throwable failure) {
		try {
			while (copy.isActive() && copy.readFromCopy() != null) {
				// The rest of the chunk is not wanted.
			}
		}
		catch (SQLException ex) {
			failure.addSuppressed(ex);
		}
	}

	private static List<String> text(byte[][] key) {
		List<String> text = new ArrayList<>(key.length);
		for (byte[] field : key) {
			text.add(new String(field, StandardCharsets.UTF_8));
		}
		return text;
	}

	private @Nullable Object decode(TablePlan plan, int column, byte[] value, boolean binary, String where) {
		return decode(plan, column, value, 0, value.length, binary, where);
	}

	private @Nullable Object decode(TablePlan plan, int column, byte[] source, int offset, int length, boolean binary,
			String where) {
		try {
			return binary ? plan.decoders[column].decodeBinary(source, offset, length)
					: plan.decoders[column].decodeText(source, offset, length);
		}
		catch (RuntimeException ex) {
			boolean valueFree = ex instanceof ValueDecodingException;
			throw new SnapshotReadException(
					"Cannot decode column '" + plan.columnNames.get(column) + "' of table " + plan.table + " (type OID "
							+ Integer.toUnsignedString(plan.typeOids[column]) + ") in " + where
							+ (valueFree ? "" : ": decoder failed with " + ex.getClass().getName()),
					plan.table, where, valueFree ? ex : null);
		}
	}

}
