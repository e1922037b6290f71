package io.postlog.decoder;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import io.postlog.TableId;
import io.postlog.admin.CatalogTable;
import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.pgoutput.PgOutputMessage.Relation;
import io.postlog.pgoutput.TupleData;
import io.postlog.pgoutput.TupleValue;
import io.postlog.types.PgType;
import org.jspecify.annotations.Nullable;

/**
 * A relation {@link Wal2JsonTranslator} sent for a table: its columns, their types, which
 * belong to the key and which may be TOASTed, and how a change's columns fit it and
 * become pgoutput's tuples. Immutable.
 */
final class Wal2JsonRelation {

	private static final byte[] HEX_PREFIX = { '\\', 'x' };

	/**
	 * Built-in types of fixed width, which the server never stores out of line: a
	 * relation made from a change without the catalog assumes any other may be TOASTed.
	 */
	private static final Set<Integer> FIXED_WIDTH = Set.of(PgType.BOOL, PgType.CHAR, PgType.NAME, PgType.INT8,
			PgType.INT2, PgType.INT4, PgType.OID, PgType.FLOAT4, PgType.FLOAT8, PgType.MONEY, PgType.MACADDR,
			PgType.MACADDR8, PgType.DATE, PgType.TIME, PgType.TIMESTAMP, PgType.TIMESTAMPTZ, PgType.INTERVAL,
			PgType.TIMETZ, PgType.UUID);

	/** How a change's columns must cover its relation's. */
	enum Fit {

		/** Every column (an insert). */
		WHOLE,

		/** Every column but unchanged TOASTed ones, of variable length (an update). */
		UNCHANGED_TOAST,

		/** Any of them (the replica identity of a delete). */
		SUBSET

	}

	final int relationId;

	final TableId table;

	final char replicaIdentity;

	final List<String> names;

	final List<Integer> typeOids;

	final boolean[] key;

	final boolean[] varlena;

	private Wal2JsonRelation(int relationId, TableId table, char replicaIdentity, List<String> names,
			List<Integer> typeOids, Set<String> keys) {
		this(relationId, table, replicaIdentity, names, typeOids, keys, null);
	}

	private Wal2JsonRelation(int relationId, TableId table, char replicaIdentity, List<String> names,
			List<Integer> typeOids, Set<String> keys, boolean @Nullable [] varlena) {
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

	/** A relation for a truncate of a table the catalog does not know. */
	static Wal2JsonRelation withoutColumns(int relationId, TableId table) {
		return new Wal2JsonRelation(relationId, table, 'd', List.of(), List.of(), Set.of());
	}

	static Wal2JsonRelation of(CatalogTable definition, Set<String> generated) {
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
		return new Wal2JsonRelation(definition.relationOid(), definition.table(), definition.replicaIdentity(), names,
				types, keys, variable);
	}

	/**
	 * A relation of the change's own columns, when the catalog's no longer matches: keys
	 * by name from the catalog where it has the table, else from the change's primary
	 * key.
	 */
	static Wal2JsonRelation synthesised(int relationId, TableId table, Optional<CatalogTable> known,
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
		return new Wal2JsonRelation(relationId, table, identity, names, types, keys, varlena);
	}

	/**
	 * Whether the columns are this relation's, in its order with its types, leaving out
	 * only what the fit allows.
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
					throw Wal2JsonTranslator.error("change",
							"column '" + this.names.get(i) + "' of " + this.table + " is missing");
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
				throw Wal2JsonTranslator.error("change",
						"key column '" + this.names.get(i) + "' of " + this.table + " is missing");
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
				throw Wal2JsonTranslator.error("change", "column '" + column.name() + "' appears twice");
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
