package io.postlog.snapshot;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import io.postlog.Lsn;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.UnchangedToast;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.types.PgType;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;

/**
 * A table as a backfill reads it: the columns pgoutput publishes (as for an initial
 * snapshot), the key it pages through in index order, and how the stream routes its
 * changes to lanes, so that a chunk row takes the lane a streamed change of its key does.
 * Keys are compared as decoded values ({@code byte[]} wrapped so that equal bytes are
 * equal keys). Immutable; thread-safe.
 */
public final class BackfillTable {

	final TablePlan plan;

	/** The key columns' positions among the plan's columns, in index order. */
	final int[] keyPositions;

	/** The same positions in column order, which is how the stream hashes a key. */
	final int[] hashPositions;

	/** Each key column's type as {@code format_type} names it, in index order. */
	final List<String> keyTypes;

	final boolean routesByKey;

	/**
	 * Whether every key column's decoded value spells the key's text form exactly (the
	 * standard decoders of {@code smallint}, {@code integer}, {@code bigint},
	 * {@code text}, {@code varchar} and {@code uuid}), so that a chunk's read need not
	 * ask the server for it: the key that the next chunk reads on from is made from the
	 * last row's values. Otherwise every row's key is read as text too.
	 */
	final boolean keyTextFromValues;

	final @Nullable ReadShape readShape;

	BackfillTable(TablePlan plan, int[] keyPositions, List<String> keyTypes, boolean routesByKey,
			@Nullable ReadShape readShape) {
		this.plan = plan;
		this.readShape = readShape;
		this.keyPositions = keyPositions.clone();
		this.hashPositions = keyPositions.clone();
		Arrays.sort(this.hashPositions);
		this.keyTypes = List.copyOf(keyTypes);
		this.routesByKey = routesByKey;
		this.keyTextFromValues = keyTextFromValues(plan, this.keyPositions);
	}

	private static boolean keyTextFromValues(TablePlan plan, int[] keyPositions) {
		for (int position : keyPositions) {
			int oid = plan.typeOids[position];
			boolean exact = oid == PgType.INT2 || oid == PgType.INT4 || oid == PgType.INT8 || oid == PgType.TEXT
					|| oid == PgType.VARCHAR || oid == PgType.UUID;
			// A decoder of the user's own for the type may give another Java type.
			if (!exact || plan.decoders[position] != ValueDecoders.standard().decoderFor(oid)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Returns the text form of a key, for a table whose {@link #keyTextFromValues} is
	 * set.
	 * @param key the key's values, in index order
	 */
	List<String> keyText(List<@Nullable Object> key) {
		List<String> text = new ArrayList<>(key.size());
		for (int i = 0; i < key.size(); i++) {
			Object value = key.get(i);
			if (!(value instanceof Number || value instanceof String || value instanceof java.util.UUID)) {
				// Key columns are never null, and the standard decoders of these types
				// give nothing else.
				throw new IllegalStateException("Key column '" + this.plan.columnNames.get(this.keyPositions[i])
						+ "' of table " + this.plan.table + " decoded to "
						+ ((value != null) ? value.getClass().getName() : "null"));
			}
			text.add(value.toString());
		}
		return text;
	}

	/**
	 * Returns the table.
	 * @return the table
	 */
	public TableId table() {
		return this.plan.table;
	}

	/**
	 * Returns the columns a chunk row holds, in table order.
	 * @return the column names
	 */
	public List<String> columns() {
		return this.plan.columnNames;
	}

	/**
	 * Returns the key columns, in the key's index order.
	 * @return the key column names
	 */
	public List<String> keyColumns() {
		List<String> names = new ArrayList<>(this.keyPositions.length);
		for (int position : this.keyPositions) {
			names.add(this.plan.columnNames.get(position));
		}
		return Collections.unmodifiableList(names);
	}

	/**
	 * Returns the shape every chunk of this table is read in (the columns read are fixed
	 * when the table is planned).
	 * @return the shape, or {@code null} when the catalog changed while it was planned
	 */
	public @Nullable ReadShape readShape() {
		return this.readShape;
	}

	/**
	 * Returns the rows the catalog expects.
	 * @return the estimate, or {@code -1} when the table was never vacuumed or analyzed
	 */
	public long estimatedRows() {
		return this.plan.estimatedRows;
	}

	/**
	 * Returns the key of a row that holds the key columns: a streamed change's row after
	 * it, or its row before it (a delete's key, an update's old key).
	 * @param row the row
	 * @return the key, or {@code null} if the row lacks a key column or holds an
	 * unchanged TOASTed value for one
	 */
	public @Nullable List<@Nullable Object> keyOf(@Nullable Row row) {
		if (row == null) {
			return null;
		}
		List<@Nullable Object> key = new ArrayList<>(this.keyPositions.length);
		for (int position : this.keyPositions) {
			String column = this.plan.columnNames.get(position);
			if (!row.contains(column)) {
				return null;
			}
			Object value = row.get(column);
			if (value instanceof UnchangedToast) {
				return null;
			}
			key.add(keyValue(value));
		}
		return key;
	}

	static @Nullable Object keyValue(@Nullable Object value) {
		return (value instanceof byte[] bytes) ? ByteBuffer.wrap(bytes) : value;
	}

	@Override
	public String toString() {
		return "BackfillTable[" + this.plan.table + ", key " + keyColumns() + "]";
	}

	/**
	 * The shape a backfill reads a table in, as pgoutput would announce it: the published
	 * columns read, with their type OIDs and modifiers, and the replica identity key
	 * flags ({@code REPLICA IDENTITY FULL}: every column; {@code NOTHING}: none).
	 *
	 * @param relation the shape as a Relation message (its {@code xid} {@code null})
	 * @param plannedAt the server's WAL insert position read after the catalog: every
	 * transaction committed before the catalog was read has a commit LSN before it
	 */
	public record ReadShape(PgOutputMessage.Relation relation, Lsn plannedAt) {

	}

}
