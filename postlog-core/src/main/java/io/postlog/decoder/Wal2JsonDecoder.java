package io.postlog.decoder;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.CatalogColumn;
import io.postlog.admin.CatalogTable;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PgIdentifiers;
import io.postlog.types.PgType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code wal2json} plugin, format version 2 (one JSON document per begin, change,
 * commit and message), reading a list of tables ({@code add-tables}). Every stream asks
 * for the members that carry transaction ids, commit times, origins, LSNs (the commit's
 * LSN comes from its {@code C} document, never from elsewhere), type OIDs, domains' base
 * types and primary keys; values arrive as the server's text and are decoded by the same
 * {@link io.postlog.types.ValueDecoders} text path as pgoutput's, so listeners see equal
 * {@code Change}s.
 * <p>
 * What wal2json cannot do is refused at start: binary values, streaming of in-progress
 * transactions. wal2json drops the updates and deletes of a table without a primary key
 * or replica identity index (unless {@code REPLICA IDENTITY FULL}) with nothing but a
 * server-side warning, so such a table is refused unless insert-only tables are allowed.
 * Before wal2json 2.6 ({@code numeric-data-types-as-string}), {@code NaN} and
 * {@code ±Infinity} of {@code float4}, {@code float8} and {@code numeric} columns arrive
 * as JSON {@code null}, indistinguishable from SQL {@code NULL}, so such columns are
 * refused unless that loss is allowed. Logical messages arrive as text up to their first
 * NUL byte. Immutable and thread-safe.
 */
public final class Wal2JsonDecoder implements LogicalDecoder {

	private static final Logger logger = LoggerFactory.getLogger(Wal2JsonDecoder.class);

	private static final String NAME = "wal2json";

	private static final DecoderCapabilities CAPABILITIES = new DecoderCapabilities(false, true, false, true,
			ServerVersions.V9_6);

	/** The types wal2json writes as JSON numbers that have non-finite values. */
	private static final Set<Integer> NON_FINITE = Set.of(PgType.FLOAT4, PgType.FLOAT8, PgType.NUMERIC);

	private final TableSelection.Tables tables;

	private final boolean insertOnlyTablesAllowed;

	private final boolean numericsAsStrings;

	private final boolean nonFiniteAsNullAllowed;

	private Wal2JsonDecoder(TableSelection.Tables tables, boolean insertOnlyTablesAllowed, boolean numericsAsStrings,
			boolean nonFiniteAsNullAllowed) {
		this.tables = tables;
		this.insertOnlyTablesAllowed = insertOnlyTablesAllowed;
		this.numericsAsStrings = numericsAsStrings;
		this.nonFiniteAsNullAllowed = nonFiniteAsNullAllowed;
	}

	/**
	 * Returns the decoder for tables; it refuses tables without a replica identity and,
	 * without {@link #withNumericsAsStrings}, tables with {@code float4}, {@code float8}
	 * or {@code numeric} columns.
	 * @param tables the tables, at least one
	 * @return the decoder
	 * @throws io.postlog.admin.InvalidIdentifierException if a name is not valid or holds
	 * a single quote
	 */
	public static Wal2JsonDecoder forTables(List<TableId> tables) {
		if (tables.isEmpty()) {
			throw new IllegalArgumentException("wal2json streams the tables it is given; at least one is required");
		}
		for (TableId table : tables) {
			PgIdentifiers.quote(table);
			if (table.schema().indexOf('\'') >= 0 || table.name().indexOf('\'') >= 0) {
				throw new io.postlog.admin.InvalidIdentifierException("table", table.toString(),
						"a single quote cannot be passed to START_REPLICATION");
			}
		}
		return new Wal2JsonDecoder(new TableSelection.Tables(tables), false, false, false);
	}

	/**
	 * Returns a decoder that allows tables without a replica identity, whose updates and
	 * deletes wal2json drops: for tables that only ever see inserts (a log, an outbox).
	 * They are named in a warning at start.
	 * @param allowed whether to allow them
	 * @return a new decoder
	 */
	public Wal2JsonDecoder allowingInsertOnlyTables(boolean allowed) {
		return new Wal2JsonDecoder(this.tables, allowed, this.numericsAsStrings, this.nonFiniteAsNullAllowed);
	}

	/**
	 * Returns a decoder that asks for numbers as strings
	 * ({@code numeric-data-types-as-string}, wal2json 2.6 and later), which keeps
	 * {@code NaN} and {@code ±Infinity}; an older wal2json refuses to start with it. See
	 * {@link #acceptsNumericsAsStrings}.
	 * @param numericsAsStrings whether to ask for it
	 * @return a new decoder
	 */
	public Wal2JsonDecoder withNumericsAsStrings(boolean numericsAsStrings) {
		return new Wal2JsonDecoder(this.tables, this.insertOnlyTablesAllowed, numericsAsStrings,
				this.nonFiniteAsNullAllowed);
	}

	/**
	 * Returns a decoder that, without numbers as strings, still streams tables with
	 * {@code float4}, {@code float8} or {@code numeric} columns, whose {@code NaN} and
	 * {@code ±Infinity} then arrive as {@code null}.
	 * @param allowed whether to allow it
	 * @return a new decoder
	 */
	public Wal2JsonDecoder allowingNonFiniteNumbersAsNull(boolean allowed) {
		return new Wal2JsonDecoder(this.tables, this.insertOnlyTablesAllowed, this.numericsAsStrings, allowed);
	}

	/**
	 * Asks the server whether its wal2json takes {@code numeric-data-types-as-string}, by
	 * starting a peek at a slot of the plugin that decodes nothing: wal2json checks its
	 * options first and refuses one it does not know ({@code 22023}).
	 * @param connection an ordinary connection of a role that may use the slot
	 * @param slotName a wal2json slot no process is streaming from
	 * @return whether the option is known (wal2json 2.6 and later)
	 * @throws PostlogException if the peek fails for another reason
	 */
	public static boolean acceptsNumericsAsStrings(Connection connection, String slotName) {
		PgIdentifiers.requireSlotName(slotName);
		try (PreparedStatement statement = connection.prepareStatement(
				"SELECT count(*) FROM pg_logical_slot_peek_changes(?, '0/1', NULL, 'format-version', '2', "
						+ "'numeric-data-types-as-string', 'true')")) {
			statement.setString(1, slotName);
			statement.executeQuery().close();
			return true;
		}
		catch (SQLException ex) {
			if (PgErrors.isInvalidParameterValue(ex) && String.valueOf(ex.getMessage()).contains("is unknown")) {
				return false;
			}
			throw new PostlogException("Could not ask wal2json of slot '" + slotName + "' about its options", ex);
		}
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public String plugin() {
		return NAME;
	}

	@Override
	public DecoderCapabilities capabilities() {
		return CAPABILITIES;
	}

	@Override
	public TableSelection tableSelection() {
		return this.tables;
	}

	@Override
	public DecoderRequest check(int serverVersion, DecoderRequest request, DecoderCatalog catalog) {
		if (serverVersion < CAPABILITIES.minServerVersion()) {
			throw new DecoderRefusedException(NAME, "postlog reads wal2json from PostgreSQL 9.6 on; the server is "
					+ "PostgreSQL " + ServerVersions.text(serverVersion));
		}
		if (request.binary()) {
			throw new DecoderRefusedException(NAME,
					"wal2json sends values as text only; turn binary values off (postlog.binary=false)");
		}
		if (request.streaming()) {
			throw new DecoderRefusedException(NAME,
					"wal2json cannot stream in-progress transactions; use decoder pgoutput for that");
		}
		List<CatalogTable> found = catalog.tables(this.tables.tables());
		List<TableId> missing = new ArrayList<>(this.tables.tables());
		found.forEach((table) -> missing.remove(table.table()));
		if (!missing.isEmpty()) {
			throw new DecoderRefusedException(NAME, "tables " + missing + " do not exist");
		}
		List<TableId> keyless = found.stream().filter((t) -> !t.hasReplicaIdentity()).map(CatalogTable::table).toList();
		if (!keyless.isEmpty() && !this.insertOnlyTablesAllowed) {
			throw new DecoderRefusedException(NAME, "tables " + keyless + " have no primary key or replica identity "
					+ "index and are not REPLICA IDENTITY FULL, so wal2json would drop their updates and deletes "
					+ "without a word; add a primary key, or ALTER TABLE ... REPLICA IDENTITY FULL, or allow "
					+ "insert-only tables");
		}
		if (!keyless.isEmpty()) {
			logger.warn("wal2json drops the updates and deletes of {}, which have no replica identity; "
					+ "they are streamed as insert-only tables", keyless);
		}
		if (!this.numericsAsStrings) {
			List<String> nonFinite = new ArrayList<>();
			for (CatalogTable table : found) {
				for (CatalogColumn column : table.columns()) {
					if (NON_FINITE.contains(column.typeOid())) {
						nonFinite.add(table.table() + "." + column.name());
					}
				}
			}
			if (!nonFinite.isEmpty() && !this.nonFiniteAsNullAllowed) {
				throw new DecoderRefusedException(NAME, "columns " + nonFinite + " are float4, float8 or numeric, "
						+ "whose NaN and Infinity wal2json before 2.6 sends as null, the same as NULL; use wal2json "
						+ "2.6 or later with numbers as strings, or allow non-finite numbers as null");
			}
			if (!nonFinite.isEmpty()) {
				logger.warn("wal2json sends NaN and Infinity of {} as null, the same as NULL", nonFinite);
			}
		}
		return request;
	}

	/**
	 * Refuses numbers as strings where the server's wal2json is older than 2.6, which
	 * would refuse {@code START_REPLICATION} at every connect.
	 */
	@Override
	public void checkSlot(Connection connection, String slotName, DecoderRequest request) {
		if (this.numericsAsStrings && !acceptsNumericsAsStrings(connection, slotName)) {
			throw new DecoderRefusedException(NAME, "the server's wal2json does not know the option "
					+ "numeric-data-types-as-string (it came with wal2json 2.6); do not ask for numbers as strings, "
					+ "and allow non-finite numbers as null or leave float4, float8 and numeric columns out");
		}
	}

	@Override
	public Map<String, String> startOptions(int serverVersion, DecoderRequest request) {
		Map<String, String> options = new LinkedHashMap<>();
		options.put("format-version", "2");
		options.put("include-xids", "true");
		options.put("include-timestamp", "true");
		options.put("include-origin", "true");
		options.put("include-lsn", "true");
		options.put("include-types", "true");
		options.put("include-type-oids", "true");
		options.put("include-domain-data-type", "true");
		options.put("include-pk", "true");
		if (this.numericsAsStrings) {
			options.put("numeric-data-types-as-string", "true");
		}
		options.put("add-tables", addTables(this.tables.tables()));
		return options;
	}

	/**
	 * {@code schema.table,...}, with wal2json's escape ({@code \}) before every character
	 * its parser treats specially: separators, wildcards, blanks and the escape itself.
	 */
	static String addTables(List<TableId> tables) {
		StringJoiner list = new StringJoiner(",");
		for (TableId table : tables) {
			list.add(escape(table.schema()) + "." + escape(table.name()));
		}
		return list.toString();
	}

	private static String escape(String name) {
		StringBuilder escaped = new StringBuilder(name.length());
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if (c == '\\' || c == ',' || c == '.' || c == '*' || Character.isWhitespace(c)) {
				escaped.append('\\');
			}
			escaped.append(c);
		}
		return escaped.toString();
	}

	@Override
	public StreamDecoder newStream(int serverVersion, DecoderRequest request, DecoderCatalog catalog) {
		return new Wal2JsonTranslator(catalog, this.tables.tables(), request.messages());
	}

}
