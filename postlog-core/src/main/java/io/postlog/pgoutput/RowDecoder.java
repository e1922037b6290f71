package io.postlog.pgoutput;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.UnchangedToast;
import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.pgoutput.PgOutputMessage.Relation;
import io.postlog.types.TypeRegistry;
import io.postlog.types.ValueDecoder;
import io.postlog.types.ValueDecoders;
import io.postlog.types.ValueDecodingException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns pgoutput tuples into {@link Row}s, keeping the latest {@link Relation} of each
 * table and the {@link PgOutputMessage.Type types} the stream announces. Not thread-safe:
 * one instance per stream, used by the thread that reads it. Rows share one column layout
 * per relation; key-only old images hold the replica identity columns only.
 * <p>
 * A value the server produced never fails a row: when its decoder reports it malformed (a
 * {@link ValueDecodingException}: a form of the type postlog does not know, such as a
 * server setting it does not expect), the value is delivered raw, as the rule for types
 * postlog does not know has it ({@code String} for text, {@code byte[]} for binary), and
 * one warning per column and format names the table, column, type OID and reason, never
 * the value. Any other exception of a decoder is a bug of that decoder and fails the row
 * with a {@link RowDecodingException}.
 */
public final class RowDecoder {

	private static final Logger logger = LoggerFactory.getLogger(RowDecoder.class);

	private final TypeRegistry types;

	private final Map<Integer, RelationLayout> relations = new HashMap<>();

	/** The layout looked up last: rows of one table tend to come together. */
	private @Nullable RelationLayout last;

	/**
	 * Creates a row decoder.
	 * @param values the value decoders to decode columns with
	 */
	public RowDecoder(ValueDecoders values) {
		this.types = new TypeRegistry(values);
	}

	/**
	 * Records a type the stream announced, for the relations that follow it: a type the
	 * catalog no longer knows then still decodes as the type it was announced as (see
	 * {@link TypeRegistry}). pgoutput sends one before the first Relation that uses a
	 * type that is not built in.
	 * @param type the type message
	 */
	public void type(PgOutputMessage.Type type) {
		this.types.announce(type.typeOid(), type.namespace(), type.name());
	}

	/**
	 * Records a relation, replacing any earlier definition with the same OID.
	 * @param relation the relation message
	 */
	public void relation(Relation relation) {
		this.relations.put(relation.relationId(), new RelationLayout(relation, this.types));
		this.last = null;
	}

	/**
	 * Returns the table of a known relation.
	 * @param relationId the relation OID
	 * @return the table
	 * @throws RowDecodingException if no Relation message announced the OID
	 */
	public TableId table(int relationId) {
		return layout(relationId).table;
	}

	/**
	 * Decodes a new row image: every column.
	 * @param relationId the relation OID
	 * @param tuple the tuple
	 * @return the row
	 * @throws RowDecodingException if the relation is unknown, the width differs or a
	 * value fails to decode
	 */
	public Row newRow(int relationId, TupleData tuple) {
		RelationLayout layout = checkedLayout(relationId, tuple);
		return Row.ofOwned(layout.allColumns, decode(layout, tuple, null));
	}

	/**
	 * Decodes an old row image: only the replica identity columns for a key image
	 * ({@code 'K'}), every column for a full image ({@code 'O'}).
	 * @param relationId the relation OID
	 * @param tuple the tuple
	 * @param keyOnly whether the tuple is a key image
	 * @return the row
	 * @throws RowDecodingException if the relation is unknown, the width differs or a
	 * value fails to decode
	 */
	public Row oldRow(int relationId, TupleData tuple, boolean keyOnly) {
		RelationLayout layout = checkedLayout(relationId, tuple);
		if (!keyOnly) {
			return Row.ofOwned(layout.allColumns, decode(layout, tuple, null));
		}
		return Row.ofOwned(layout.keyColumns, decode(layout, tuple, layout.keyIndexes));
	}

	/**
	 * Returns a hash of a tuple's replica-identity key, from the values' bytes as the
	 * server sent them, for routing changes of one row to the same place: equal keys give
	 * equal hashes. A relation without a usable key (replica identity {@code nothing} or
	 * {@code full}, or no key column) hashes by table alone.
	 * @param relationId the relation OID
	 * @param tuple a new-row or key tuple of that relation
	 * @return the hash
	 * @throws RowDecodingException if the relation is unknown or the width differs
	 */
	public int keyHash(int relationId, TupleData tuple) {
		RelationLayout layout = checkedLayout(relationId, tuple);
		int hash = layout.table.hashCode();
		if (!layout.routesByKey) {
			return hash;
		}
		for (int index : layout.keyIndexes) {
			hash = 31 * hash + tuple.hash(index);
		}
		return hash;
	}

	private @Nullable Object[] decode(RelationLayout layout, TupleData tuple, int @Nullable [] indexes) {
		int count = (indexes != null) ? indexes.length : layout.decoders.length;
		@Nullable Object[] row = new Object[count];
		for (int i = 0; i < count; i++) {
			int column = (indexes != null) ? indexes[i] : i;
			row[i] = value(layout, column, tuple);
		}
		return row;
	}

	private static @Nullable Object value(RelationLayout layout, int column, TupleData tuple) {
		try {
			int kind = tuple.kindAt(column);
			if (kind == TupleData.BINARY || kind == TupleData.TEXT) {
				return decodeOrRaw(layout, column, tuple.sourceAt(column), tuple.offsetAt(column),
						tuple.lengthAt(column), kind == TupleData.BINARY);
			}
			return (kind == TupleData.UNCHANGED_TOAST) ? UnchangedToast.INSTANCE : null;
		}
		catch (RuntimeException ex) {
			Column definition = layout.relation.columns().get(column);
			throw new RowDecodingException("Cannot decode column '" + definition.name() + "' of table " + layout.table
					+ " (type OID " + Integer.toUnsignedString(definition.typeOid()) + "): decoder failed with "
					+ ex.getClass().getName(), null);
		}
	}

	private static @Nullable Object decodeOrRaw(RelationLayout layout, int column, byte[] source, int offset,
			int length, boolean binary) {
		ValueDecoder decoder = layout.decoders[column];
		try {
			return binary ? decoder.decodeBinary(source, offset, length) : decoder.decodeText(source, offset, length);
		}
		catch (ValueDecodingException ex) {
			if (layout.warn(column, binary)) {
				Column definition = layout.relation.columns().get(column);
				logger.warn(
						"Column '{}' of table {} (type OID {}) sent a {} value postlog cannot decode ({}); "
								+ "its values are delivered raw, as {}",
						definition.name(), layout.table, Integer.toUnsignedString(definition.typeOid()),
						binary ? "binary" : "text", ex.reason(), binary ? "byte[]" : "String");
			}
			return binary ? Arrays.copyOfRange(source, offset, offset + length)
					: new String(source, offset, length, StandardCharsets.UTF_8);
		}
	}

	private RelationLayout checkedLayout(int relationId, TupleData tuple) {
		RelationLayout layout = layout(relationId);
		if (tuple.size() != layout.decoders.length) {
			throw new RowDecodingException(
					"Tuple of table " + layout.table + " (relation OID " + Integer.toUnsignedString(relationId)
							+ ") has " + tuple.size() + " columns but its relation has " + layout.decoders.length,
					null);
		}
		return layout;
	}

	private RelationLayout layout(int relationId) {
		RelationLayout last = this.last;
		if (last != null && last.relation.relationId() == relationId) {
			return last;
		}
		RelationLayout layout = this.relations.get(relationId);
		this.last = layout;
		if (layout == null) {
			throw new RowDecodingException(
					"No Relation message received for relation OID " + Integer.toUnsignedString(relationId), null);
		}
		return layout;
	}

	/** What every row of one relation shares, computed once per Relation message. */
	private static final class RelationLayout {

		final Relation relation;

		final TableId table;

		final Row.Columns allColumns;

		final Row.Columns keyColumns;

		final int[] keyIndexes;

		final ValueDecoder[] decoders;

		/** Whether the key columns identify a row: replica identity default or index. */
		final boolean routesByKey;

		/** Per column, bit 0: warned of a text value, bit 1: of a binary one. */
		private final byte[] warned;

		RelationLayout(Relation relation, TypeRegistry types) {
			this.relation = relation;
			// pgoutput sends pg_catalog as an empty namespace.
			String schema = relation.namespace().isEmpty() ? "pg_catalog" : relation.namespace();
			this.table = new TableId(schema, relation.relationName());
			List<Column> columns = relation.columns();
			List<String> names = new ArrayList<>(columns.size());
			List<String> keyNames = new ArrayList<>();
			this.decoders = new ValueDecoder[columns.size()];
			int[] keys = new int[columns.size()];
			for (int i = 0; i < columns.size(); i++) {
				Column column = columns.get(i);
				names.add(column.name());
				if (column.isKey()) {
					keys[keyNames.size()] = i;
					keyNames.add(column.name());
				}
				this.decoders[i] = types.decoderFor(column.typeOid());
			}
			this.allColumns = Row.columns(names);
			this.keyColumns = Row.keyColumns(keyNames, names);
			this.keyIndexes = Arrays.copyOf(keys, keyNames.size());
			char identity = relation.replicaIdentity();
			this.routesByKey = (identity == 'd' || identity == 'i') && this.keyIndexes.length > 0;
			this.warned = new byte[columns.size()];
		}

		/** Returns {@code true} the first time a column falls back in a format. */
		boolean warn(int column, boolean binary) {
			int bit = binary ? 2 : 1;
			if ((this.warned[column] & bit) != 0) {
				return false;
			}
			this.warned[column] |= (byte) bit;
			return true;
		}

	}

}
