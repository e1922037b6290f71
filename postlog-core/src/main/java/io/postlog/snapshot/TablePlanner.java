package io.postlog.snapshot;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.types.PgType;
import io.postlog.types.ValueDecoder;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;

/**
 * Reads a table's catalog entry under the snapshot and splits it into chunks: heap block
 * ranges on PostgreSQL 14 and later (TID range scans), ranges of a single-column integer
 * primary key or replica identity before 14, else the whole table in one pass. The
 * columns are those pgoutput publishes: not dropped, not generated, and within the
 * publication's column list where one is given (15 and later), whose row filter applies
 * too. Runs on a connection inside the imported snapshot, so the catalog is the
 * snapshot's.
 */
final class TablePlanner {

	static final int TID_RANGE_SCAN_VERSION = 140000;

	private static final int GENERATED_COLUMNS_VERSION = 120000;

	private static final int PUBLICATION_COLUMNS_VERSION = 150000;

	private static final Set<Integer> INTEGER_KEYS = Set.of(PgType.INT2, PgType.INT4, PgType.INT8);

	private final Connection connection;

	private final int serverVersion;

	private final ValueDecoders decoders;

	private final SnapshotOptions options;

	TablePlanner(Connection connection, int serverVersion, ValueDecoders decoders, SnapshotOptions options) {
		this.connection = connection;
		this.serverVersion = serverVersion;
		this.decoders = decoders;
		this.options = options;
	}

	TablePlan plan(TableId table) throws SQLException {
		return plan(table, true);
	}

	/**
	 * Plans a table, with its chunks or (for a backfill, which pages by key) without.
	 */
	TablePlan plan(TableId table, boolean chunked) throws SQLException {
		PgIdentifiers.quote(table);
		RelationFacts relation = relation(table);
		List<String> names = new ArrayList<>();
		List<Integer> types = new ArrayList<>();
		columns(relation.oid, names, types);
		String rowFilter = null;
		if (this.options.publication() != null) {
			rowFilter = applyPublication(table, names, types);
		}
		if (names.isEmpty()) {
			throw new SnapshotReadException("Table " + table + " has no columns to snapshot", table, null, null);
		}
		int[] typeOids = types.stream().mapToInt(Integer::intValue).toArray();
		ValueDecoder[] decoders = new ValueDecoder[typeOids.length];
		for (int i = 0; i < typeOids.length; i++) {
			decoders[i] = this.decoders.decoderFor(typeOids[i]);
		}
		long estimatedRows = relation.estimatedRows();
		List<Chunk> chunks = chunked ? chunks(table, relation, estimatedRows) : List.of();
		return new TablePlan(table, relation.oid, relation.partitioned(), names, typeOids, decoders, rowFilter,
				estimatedRows, chunks);
	}

	private RelationFacts relation(TableId table) throws SQLException {
		try (PreparedStatement statement = this.connection.prepareStatement(
				"SELECT c.oid, c.relkind, c.relpages, c.reltuples::float8, pg_catalog.pg_relation_size(c.oid),"
						+ " current_setting('block_size')::int"
						+ " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
						+ " WHERE n.nspname = ? AND c.relname = ?")) {
			statement.setString(1, table.schema());
			statement.setString(2, table.name());
			try (ResultSet row = statement.executeQuery()) {
				if (!row.next()) {
					throw new SnapshotReadException("Table " + table + " does not exist in the snapshot", table, null,
							null);
				}
				String kind = row.getString(2);
				if (!"r".equals(kind) && !"p".equals(kind)) {
					throw new SnapshotReadException(
							table + " is not a table (relkind '" + kind + "'); only tables can be snapshot", table,
							null, null);
				}
				return new RelationFacts(row.getLong(1), "p".equals(kind), row.getLong(3), row.getDouble(4),
						row.getLong(5) / row.getInt(6));
			}
		}
	}

	private void columns(long oid, List<String> names, List<Integer> types) throws SQLException {
		String generated = (this.serverVersion >= GENERATED_COLUMNS_VERSION) ? " AND a.attgenerated = ''" : "";
		try (PreparedStatement statement = this.connection
			.prepareStatement("SELECT a.attname, a.atttypid FROM pg_catalog.pg_attribute a WHERE a.attrelid = ?"
					+ " AND a.attnum > 0 AND NOT a.attisdropped" + generated + " ORDER BY a.attnum")) {
			statement.setLong(1, oid);
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					names.add(row.getString(1));
					types.add((int) row.getLong(2));
				}
			}
		}
	}

	/**
	 * Keeps the publication's columns and returns its row filter; refuses a table the
	 * publication does not publish.
	 */
	private @Nullable String applyPublication(TableId table, List<String> names, List<Integer> types)
			throws SQLException {
		String publication = this.options.publication();
		boolean lists = this.serverVersion >= PUBLICATION_COLUMNS_VERSION;
		try (PreparedStatement statement = this.connection.prepareStatement("SELECT "
				+ (lists ? "attnames, rowfilter" : "NULL::name[], NULL::text")
				+ " FROM pg_catalog.pg_publication_tables WHERE pubname = ? AND schemaname = ? AND tablename = ?")) {
			statement.setString(1, publication);
			statement.setString(2, table.schema());
			statement.setString(3, table.name());
			try (ResultSet row = statement.executeQuery()) {
				if (!row.next()) {
					throw new SnapshotReadException("Publication '" + publication + "' does not publish table " + table,
							table, null, null);
				}
				Array attnames = row.getArray(1);
				if (attnames != null) {
					Set<String> published = new HashSet<>(Arrays.asList((String[]) attnames.getArray()));
					for (int i = names.size() - 1; i >= 0; i--) {
						if (!published.contains(names.get(i))) {
							names.remove(i);
							types.remove(i);
						}
					}
				}
				return row.getString(2);
			}
		}
	}

	private List<Chunk> chunks(TableId table, RelationFacts relation, long estimatedRows) throws SQLException {
		if (relation.partitioned()) {
			return Chunk.whole("whole partitioned table");
		}
		if (this.serverVersion >= TID_RANGE_SCAN_VERSION) {
			return Chunk.blockRanges(relation.blocks(), relation.density(), this.options.chunkSize());
		}
		Key key = integerKey(relation.oid);
		if (key == null) {
			return Chunk.whole("whole table, no single-column integer key");
		}
		String quoted = PgIdentifiers.quote("column", key.name());
		long[] bounds = bounds(table, quoted);
		if (bounds == null) {
			return Chunk.whole("whole table, empty");
		}
		return Chunk.keyRanges(quoted, key.name(), bounds[0], bounds[1], estimatedRows, this.options.chunkSize());
	}

	private @Nullable Key integerKey(long oid) throws SQLException {
		try (PreparedStatement statement = this.connection
			.prepareStatement("SELECT a.attname, a.atttypid FROM pg_catalog.pg_index i JOIN pg_catalog.pg_attribute a"
					+ " ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]"
					+ " WHERE i.indrelid = ? AND (i.indisprimary OR i.indisreplident) AND i.indnatts = 1"
					+ " ORDER BY i.indisprimary DESC LIMIT 1")) {
			statement.setLong(1, oid);
			try (ResultSet row = statement.executeQuery()) {
				if (row.next() && INTEGER_KEYS.contains((int) row.getLong(2))) {
					return new Key(row.getString(1));
				}
				return null;
			}
		}
	}

	private long @Nullable [] bounds(TableId table, String quotedKey) throws SQLException {
		try (Statement statement = this.connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT min(" + quotedKey + ")::int8, max(" + quotedKey
						+ ")::int8 FROM " + PgIdentifiers.quote(table))) {
			row.next();
			long min = row.getLong(1);
			if (row.wasNull()) {
				return null;
			}
			return new long[] { min, row.getLong(2) };
		}
	}

	/**
	 * What the catalog says about a table's size.
	 *
	 * @param relpages pages at the last vacuum or analyze
	 * @param reltuples rows at the last vacuum or analyze; -1 (14 and later) or 0 with
	 * {@code relpages} 0 (before) when never measured
	 * @param blocks the table's size now, in blocks
	 */
	private record RelationFacts(long oid, boolean partitioned, long relpages, double reltuples, long blocks) {

		double density() {
			return (this.relpages > 0 && this.reltuples >= 0) ? this.reltuples / this.relpages : 0;
		}

		/**
		 * Scales the density to the current size, as the planner does; -1 when unknown.
		 */
		long estimatedRows() {
			if (this.relpages > 0 && this.reltuples >= 0) {
				return Math.round(density() * this.blocks);
			}
			return (this.blocks == 0 && !this.partitioned) ? 0 : -1;
		}

	}

	private record Key(String name) {

	}

}
