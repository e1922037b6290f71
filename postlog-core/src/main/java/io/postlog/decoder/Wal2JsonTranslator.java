package io.postlog.decoder;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.CatalogTable;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.pgoutput.PgOutputMessage.Relation;
import io.postlog.pgoutput.TupleData;
import io.postlog.pgoutput.TupleValue;
import io.postlog.types.PgType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one stream's wal2json documents into pgoutput's messages. wal2json sends no
 * relations, so they are synthesised: from the catalog (read for the configured tables
 * when the stream starts) where it agrees with the change's columns, else from the change
 * itself, and sent again whenever a change's columns differ from the last relation sent,
 * like pgoutput sends a relation before its first change and after it changes. A column
 * an update leaves out is an unchanged TOASTed value if its type is of variable length,
 * else a sign that the table changed. wal2json always sends an update's replica identity,
 * from the new row when the key did not change; like pgoutput, that gives no old image.
 * Not thread-safe: one per stream.
 */
final class Wal2JsonTranslator implements StreamDecoder {

	private static final Logger logger = LoggerFactory.getLogger(Wal2JsonTranslator.class);

	private static final String PLUGIN = "wal2json";

	/** Types below this OID are built in, and pgoutput announces none of them. */
	private static final int FIRST_NON_BUILTIN_OID = 10000;

	private static final byte[] HEX_PREFIX = { '\\', 'x' };

	/**
	 * Built-in types of fixed width, which the server never stores out of line: a
	 * relation made from a change without the catalog assumes any other may be TOASTed.
	 */
	private static final Set<Integer> FIXED_WIDTH = Set.of(PgType.BOOL, PgType.CHAR, PgType.NAME, PgType.INT8,
			PgType.INT2, PgType.INT4, PgType.OID, PgType.FLOAT4, PgType.FLOAT8, PgType.MONEY, PgType.MACADDR,
			PgType.MACADDR8, PgType.DATE, PgType.TIME, PgType.TIMESTAMP, PgType.TIMESTAMPTZ, PgType.INTERVAL,
			PgType.TIMETZ, PgType.UUID);

	private final DecoderCatalog catalog;

	private final boolean messages;

	private final Map<TableId, Optional<CatalogTable>> tables = new HashMap<>();

	private final Map<TableId, Layout> relations = new HashMap<>();

	private final Set<Integer> announced = new HashSet<>();

	private final Map<Long, Optional<String>> origins = new HashMap<>();

	private PgOutputMessage.@Nullable Begin open;

	/**
	 * Ids for tables the catalog does not know, counting down from the top of the OIDs.
	 */
	private int nextSyntheticId = -1;

	Wal2JsonTranslator(DecoderCatalog catalog, Collection<TableId> configured, boolean messages) {
		this.catalog = catalog;
		this.messages = messages;
		for (TableId table : configured) {
			this.tables.put(table, Optional.empty());
		}
		for (CatalogTable table : catalog.tables(configured)) {
			this.tables.put(table.table(), Optional.of(table));
		}
	}

	@Override
	public List<PgOutputMessage> decode(ByteBuffer payload) {
		byte[] document = new byte[payload.remaining()];
		payload.get(document);
		Wal2JsonMessage message = Wal2JsonParser.parse(document);
		if (message instanceof Wal2JsonMessage.Begin begin) {
			return begin(begin);
		}
		if (message instanceof Wal2JsonMessage.Commit commit) {
			return commit(commit);
		}
		if (message instanceof Wal2JsonMessage.Change change) {
			return change(change);
		}
		if (message instanceof Wal2JsonMessage.Truncate truncate) {
			requireOpen("truncate", truncate.xid());
			TableId table = new TableId(truncate.schema(), truncate.table());
			List<PgOutputMessage> out = new ArrayList<>();
			Layout layout = this.relations.get(table);
			if (layout == null) {
				Optional<CatalogTable> known = catalogTable(table);
				layout = known.isPresent() ? Layout.of(known.get(), generated(known))
						: new Layout(syntheticId(), table, 'd', List.of(), List.of(), Set.of());
				send(layout, out);
			}
			out.add(new PgOutputMessage.Truncate(null, 0, List.of(layout.relationId)));
			return out;
		}
		Wal2JsonMessage.Message logical = (Wal2JsonMessage.Message) message;
		if (logical.transactional()) {
			requireOpen("transactional message", logical.xid());
		}
		if (!this.messages) {
			return List.of();
		}
		return List.of(new PgOutputMessage.Message(null, logical.transactional(), required(logical.lsn(), "message"),
				logical.prefix(), logical.content()));
	}

	private List<PgOutputMessage> begin(Wal2JsonMessage.Begin begin) {
		if (this.open != null) {
			throw error("begin", "a transaction began inside another");
		}
		PgOutputMessage.Begin opened = new PgOutputMessage.Begin(required(begin.lsn(), "begin"),
				required(begin.timestamp(), "begin"), required(begin.xid(), "begin"));
		this.open = opened;
		Long origin = begin.origin();
		if (origin == null || origin == 0) {
			return List.of(opened);
		}
		Optional<String> name = this.origins.computeIfAbsent(origin, (id) -> this.catalog.originName((int) (long) id));
		if (name.isEmpty()) {
			if (this.origins.size() < 1000) {
				logger.warn("wal2json named replication origin {}, which the catalog no longer has: "
						+ "its transactions are delivered without an origin", origin);
			}
			return List.of(opened);
		}
		return List.of(opened, new PgOutputMessage.Origin(Lsn.INVALID, name.get()));
	}

	private List<PgOutputMessage> commit(Wal2JsonMessage.Commit commit) {
		PgOutputMessage.Begin begin = requireOpen("commit", commit.xid());
		if (commit.lsn() == null) {
			throw error("commit", "a commit without its LSN (the stream must have include-lsn)");
		}
		this.open = null;
		Lsn endLsn = required(commit.nextLsn(), "commit");
		return List.of(new PgOutputMessage.Commit(0, commit.lsn(), endLsn,
				(commit.timestamp() != null) ? commit.timestamp() : begin.commitTime()));
	}

	private List<PgOutputMessage> change(Wal2JsonMessage.Change change) {
		requireOpen("change", change.xid());
		TableId table = new TableId(change.schema(), change.table());
		Optional<CatalogTable> known = catalogTable(table);
		Set<String> generated = generated(known);
		List<Wal2JsonMessage.Column> columns = withoutGenerated(change.columns(), generated);
		List<Wal2JsonMessage.Column> identity = withoutGenerated(change.identity(), generated);
		List<PgOutputMessage> out = new ArrayList<>(3);
		Fit fit = switch (change.action()) {
			case 'I' -> Fit.WHOLE;
			case 'U' -> Fit.UNCHANGED_TOAST;
			default -> Fit.SUBSET;
		};
		Layout layout = layout(table, known, generated, change, (columns != null) ? columns : identity, fit, out);
		int relationId = layout.relationId;
		switch (change.action()) {
			case 'I' -> out.add(new PgOutputMessage.Insert(null, relationId, layout.tuple(columns, false)));
			case 'U' -> {
				TupleData newTuple = layout.tuple(columns, true);
				TupleData keyTuple = null;
				TupleData oldTuple = null;
				if (layout.replicaIdentity == 'f') {
					oldTuple = layout.tuple(required(identity, "update"), true);
				}
				else if (identity != null && !layout.sameValues(identity, columns)) {
					keyTuple = layout.keyTuple(identity);
				}
				out.add(new PgOutputMessage.Update(null, relationId, keyTuple, oldTuple, newTuple));
			}
			default -> {
				List<Wal2JsonMessage.Column> old = required(identity, "delete");
				if (layout.replicaIdentity == 'f') {
					out.add(new PgOutputMessage.Delete(null, relationId, null, layout.tuple(old, true)));
				}
				else {
					out.add(new PgOutputMessage.Delete(null, relationId, layout.keyTuple(old), null));
				}
			}
		}
		return out;
	}

	/**
	 * The relation a change fits: the one sent last, else the catalog's, else one made of
	 * the change's own columns; a new one is sent before the change.
	 */
	private Layout layout(TableId table, Optional<CatalogTable> known, Set<String> generated,
			Wal2JsonMessage.Change change, @Nullable List<Wal2JsonMessage.Column> sent, Fit fit,
			List<PgOutputMessage> out) {
		List<Wal2JsonMessage.Column> columns = required(sent, "change");
		Layout current = this.relations.get(table);
		if (current != null && current.fits(columns, fit)) {
			return current;
		}
		Layout layout = known.map((definition) -> Layout.of(definition, generated))
			.filter((candidate) -> candidate.fits(columns, fit))
			.orElse(null);
		if (layout == null) {
			layout = Layout.synthesised(known.map(CatalogTable::relationOid).orElseGet(this::syntheticId), table, known,
					change, columns);
		}
		announce(columns, out);
		send(layout, out);
		return layout;
	}

	private void send(Layout layout, List<PgOutputMessage> out) {
		this.relations.put(layout.table, layout);
		out.add(layout.relation());
	}

	/**
	 * Announces the types that are not built in as pgoutput does, by the base type
	 * wal2json names for a domain ({@code include-domain-data-type}), so that a domain
	 * the catalog no longer knows still decodes as its base type.
	 */
	private void announce(List<Wal2JsonMessage.Column> columns, List<PgOutputMessage> out) {
		for (Wal2JsonMessage.Column column : columns) {
			Integer oid = column.typeOid();
			if (oid == null || (oid >= 0 && oid < FIRST_NON_BUILTIN_OID) || column.type() == null
					|| this.announced.contains(oid)) {
				continue;
			}
			String name = FormatTypeNames.catalogName(column.type());
			if (name != null) {
				this.announced.add(oid);
				out.add(new PgOutputMessage.Type(null, oid, "", name));
			}
		}
	}

	private Optional<CatalogTable> catalogTable(TableId table) {
		return this.tables.computeIfAbsent(table, (key) -> this.catalog.tables(List.of(key)).stream().findFirst());
	}

	private static Set<String> generated(Optional<CatalogTable> known) {
		if (known.isEmpty()) {
			return Set.of();
		}
		Set<String> generated = new HashSet<>();
		known.get().columns().stream().filter((column) -> column.generated()).forEach((c) -> generated.add(c.name()));
		return generated;
	}

	/** pgoutput does not publish generated columns, which wal2json sends. */
	private static @Nullable List<Wal2JsonMessage.Column> withoutGenerated(
			@Nullable List<Wal2JsonMessage.Column> columns, Set<String> generated) {
		if (columns == null || generated.isEmpty()) {
			return columns;
		}
		return columns.stream().filter((column) -> !generated.contains(column.name())).toList();
	}

	private int syntheticId() {
		return this.nextSyntheticId--;
	}

	private PgOutputMessage.Begin requireOpen(String what, @Nullable Long xid) {
		PgOutputMessage.Begin begin = this.open;
		if (begin == null) {
			throw error(what, "outside a transaction");
		}
		if (xid != null && xid != begin.xid()) {
			throw error(what, "of transaction " + xid + " inside transaction " + begin.xid());
		}
		return begin;
	}

	private static <T> T required(@Nullable T value, String what) {
		if (value == null) {
			throw error(what, "a member the stream's options put in every " + what + " is missing");
		}
		return value;
	}

	private static PluginDecodingException error(String what, String reason) {
		return new PluginDecodingException(PLUGIN, what, -1, reason);
	}

	/** How a change's columns must cover its relation's. */
	private enum Fit {

		/** Every column (an insert). */
		WHOLE,

		/** Every column but unchanged TOASTed ones, of variable length (an update). */
		UNCHANGED_TOAST,

		/** Any of them (the replica identity of a delete). */
		SUBSET

	}

	/** A relation as sent: its columns, their types and which belong to the key. */
	private static final class Layout {

		final int relationId;

		final TableId table;

		final char replicaIdentity;

		final List<String> names;

		final List<Integer> typeOids;

		final boolean[] key;

		final boolean[] varlena;

		private Layout(int relationId, TableId table, char replicaIdentity, List<String> names, List<Integer> typeOids,
				Set<String> keys) {
			this(relationId, table, replicaIdentity, names, typeOids, keys, null);
		}

		private Layout(int relationId, TableId table, char replicaIdentity, List<String> names, List<Integer> typeOids,
				Set<String> keys, boolean @Nullable [] varlena) {
			this.relationId = relationId;
			this.table = table;
			this.replicaIdentity = replicaIdentity;
			this.names = List.copyOf(names);
			this.typeOids = List.copyOf(typeOids);
			this.key = new boolean[names.size()];
			for (int i = 0; i < names.size(); i++) {
				// pgoutput marks every column a key column under REPLICA IDENTITY FULL.
				this.key[i] = replicaIdentity == 'f' || keys.contains(names.get(i));
			}
			this.varlena = (varlena != null) ? varlena : new boolean[names.size()];
		}

		static Layout of(CatalogTable definition, Set<String> generated) {
			List<String> names = new ArrayList<>();
			List<Integer> types = new ArrayList<>();
			Set<String> keys = new HashSet<>();
			List<Boolean> varlena = new ArrayList<>();
			definition.columns().stream().filter((column) -> !generated.contains(column.name())).forEach((column) -> {
				names.add(column.name());
				types.add(column.typeOid());
				varlena.add(column.varlena());
				if (column.key()) {
					keys.add(column.name());
				}
			});
			boolean[] variable = new boolean[varlena.size()];
			for (int i = 0; i < variable.length; i++) {
				variable[i] = varlena.get(i);
			}
			return new Layout(definition.relationOid(), definition.table(), definition.replicaIdentity(), names, types,
					keys, variable);
		}

		/**
		 * A relation of the change's own columns, when the catalog's no longer matches:
		 * keys by name from the catalog where it has the table, else from the change's
		 * primary key.
		 */
		static Layout synthesised(int relationId, TableId table, Optional<CatalogTable> known,
				Wal2JsonMessage.Change change, List<Wal2JsonMessage.Column> columns) {
			Set<String> keys = new HashSet<>();
			if (known.isPresent()) {
				known.get().columns().stream().filter((c) -> c.key()).forEach((c) -> keys.add(c.name()));
			}
			else if (change.pk() != null) {
				change.pk().forEach((column) -> keys.add(column.name()));
			}
			List<String> names = columns.stream().map(Wal2JsonMessage.Column::name).toList();
			List<Integer> types = columns.stream()
				.map((column) -> (column.typeOid() != null) ? column.typeOid() : 0)
				.toList();
			char identity = known.map(CatalogTable::replicaIdentity).orElse('d');
			boolean[] varlena = new boolean[types.size()];
			for (int i = 0; i < varlena.length; i++) {
				varlena[i] = !FIXED_WIDTH.contains(types.get(i));
			}
			return new Layout(relationId, table, identity, names, types, keys, varlena);
		}

		/**
		 * Whether the columns are this relation's, in its order with its types, leaving
		 * out only what the fit allows.
		 */
		boolean fits(List<Wal2JsonMessage.Column> columns, Fit fit) {
			int at = 0;
			for (Wal2JsonMessage.Column column : columns) {
				while (at < this.names.size() && !this.names.get(at).equals(column.name())) {
					if (!mayBeMissing(at, fit)) {
						return false;
					}
					at++;
				}
				if (at == this.names.size()) {
					return false;
				}
				Integer oid = column.typeOid();
				if (oid != null && this.typeOids.get(at) != (int) oid) {
					return false;
				}
				at++;
			}
			for (; at < this.names.size(); at++) {
				if (!mayBeMissing(at, fit)) {
					return false;
				}
			}
			return true;
		}

		private boolean mayBeMissing(int column, Fit fit) {
			return fit == Fit.SUBSET || (fit == Fit.UNCHANGED_TOAST && this.varlena[column]);
		}

		/**
		 * The tuple of a whole row: columns not sent are unchanged TOASTed values where
		 * {@code missingIsToast}.
		 */
		TupleData tuple(@Nullable List<Wal2JsonMessage.Column> columns, boolean missingIsToast) {
			List<TupleValue> values = new ArrayList<>(this.names.size());
			Map<String, Wal2JsonMessage.Column> byName = byName(Objects.requireNonNull(columns));
			for (int i = 0; i < this.names.size(); i++) {
				Wal2JsonMessage.Column column = byName.get(this.names.get(i));
				if (column == null) {
					if (!missingIsToast || !this.varlena[i]) {
						throw error("change", "column '" + this.names.get(i) + "' of " + this.table + " is missing");
					}
					values.add(TupleValue.UNCHANGED_TOAST);
				}
				else {
					values.add(value(column, this.typeOids.get(i)));
				}
			}
			return new TupleData(values);
		}

		/** A key image, as pgoutput sends it: the key columns, every other one NULL. */
		TupleData keyTuple(List<Wal2JsonMessage.Column> identity) {
			Map<String, Wal2JsonMessage.Column> byName = byName(identity);
			List<TupleValue> values = new ArrayList<>(this.names.size());
			for (int i = 0; i < this.names.size(); i++) {
				Wal2JsonMessage.Column column = this.key[i] ? byName.get(this.names.get(i)) : null;
				if (this.key[i] && column == null) {
					throw error("change", "key column '" + this.names.get(i) + "' of " + this.table + " is missing");
				}
				values.add((column != null) ? value(column, this.typeOids.get(i)) : TupleValue.NULL);
			}
			return new TupleData(values);
		}

		/** Whether every identity column holds what the new row holds. */
		boolean sameValues(List<Wal2JsonMessage.Column> identity, @Nullable List<Wal2JsonMessage.Column> row) {
			Map<String, Wal2JsonMessage.Column> newRow = byName(Objects.requireNonNull(row));
			for (Wal2JsonMessage.Column column : identity) {
				Wal2JsonMessage.Column now = newRow.get(column.name());
				if (now == null || !Objects.equals(now.value(), column.value())) {
					return false;
				}
			}
			return true;
		}

		Relation relation() {
			List<Column> columns = new ArrayList<>(this.names.size());
			for (int i = 0; i < this.names.size(); i++) {
				columns.add(new Column(this.key[i] ? 1 : 0, this.names.get(i), this.typeOids.get(i), -1));
			}
			return new Relation(null, this.relationId, this.table.schema(), this.table.name(), this.replicaIdentity,
					columns);
		}

		private static Map<String, Wal2JsonMessage.Column> byName(List<Wal2JsonMessage.Column> columns) {
			Map<String, Wal2JsonMessage.Column> byName = new HashMap<>();
			for (Wal2JsonMessage.Column column : columns) {
				if (byName.put(column.name(), column) != null) {
					throw error("change", "column '" + column.name() + "' appears twice");
				}
			}
			return byName;
		}

		/**
		 * A value as pgoutput's text form: wal2json writes numbers and booleans as JSON
		 * literals, and a {@code bytea}'s hex without its {@code \x}.
		 */
		private static TupleValue value(Wal2JsonMessage.Column column, int typeOid) {
			Json.Value value = Objects.requireNonNull(column.value());
			if (value == Json.Null.INSTANCE) {
				return TupleValue.NULL;
			}
			if (value instanceof Json.Bool bool) {
				return new TupleValue.Text(new byte[] { (byte) (bool.value() ? 't' : 'f') });
			}
			if (value instanceof Json.Numeral numeral) {
				return new TupleValue.Text(numeral.text());
			}
			byte[] text = ((Json.Text) value).bytes();
			if (typeOid == PgType.BYTEA) {
				byte[] hex = new byte[text.length + 2];
				System.arraycopy(HEX_PREFIX, 0, hex, 0, 2);
				System.arraycopy(text, 0, hex, 2, text.length);
				return new TupleValue.Text(hex);
			}
			return new TupleValue.Text(text);
		}

	}

}
