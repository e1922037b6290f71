package io.postlog.snapshot;

import java.time.Instant;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.types.ValueDecodingException;
import org.jspecify.annotations.Nullable;

/**
 * Turns the fields of one copied row into a {@link Operation#SNAPSHOT} change. What a
 * snapshot row carries, since it belongs to no transaction:
 * <ul>
 * <li>{@code commitLsn}: the snapshot's consistent point, at or before the commit LSN of
 * every transaction the stream delivers after it, so snapshot rows order before them;
 * <li>{@code commitTime}: when the slot and its snapshot were created, the same for every
 * row;
 * <li>{@code xid}: {@code 0}, PostgreSQL's invalid transaction id;
 * <li>{@code index}: the row's 0-based position in its chunk;
 * <li>{@code id}: {@code slot/consistentPoint/snapshot/tableOid/block.offset}, from the
 * row version's {@code ctid} (and its partition's OID), which the snapshot fixes: the
 * same however the table is chunked or how many readers run, distinct from every stream
 * change's id, and different for another snapshot.
 * </ul>
 * Thread-safe: shared by the readers.
 */
final class SnapshotRows {

	private final String idPrefix;

	private final Lsn consistentPoint;

	private final Instant createdAt;

	private final boolean binary;

	/** Each table's id prefix, filled before the readers start and read-only after. */
	private final Map<TablePlan, String> tablePrefixes = new IdentityHashMap<>();

	SnapshotRows(ExportedSnapshot snapshot, boolean binary, List<TablePlan> plans) {
		this.idPrefix = snapshot.streamSlotName() + "/" + snapshot.consistentPoint() + "/snapshot/";
		for (TablePlan plan : plans) {
			this.tablePrefixes.put(plan, this.idPrefix + plan.oid + "/");
		}
		this.consistentPoint = snapshot.consistentPoint();
		this.createdAt = snapshot.createdAt();
		this.binary = binary;
	}

	/**
	 * Builds the change of one row, decoding each value from its slice.
	 * @throws SnapshotReadException if a value does not decode (naming the column and its
	 * type OID, not the value)
	 */
	Change change(TablePlan plan, CopyFields fields, int index, String chunk) {
		int system = plan.systemFields();
		int tid = system - 1;
		String prefix = plan.partitioned ? this.idPrefix + relationOid(fields, 0) + "/" : this.tablePrefixes.get(plan);
		String id = this.binary ? binaryTid(prefix, fields, tid) : textTid(prefix, fields, tid);
		@Nullable Object[] values = new Object[fields.count() - system];
		for (int i = 0; i < values.length; i++) {
			values[i] = fields.isNull(system + i) ? null : decode(plan, i, fields, system + i, chunk);
		}
		return new Change(Operation.SNAPSHOT, plan.table, null, Row.ofOwned(plan.columns, values), 0L,
				this.consistentPoint, this.createdAt, index, id);
	}

	private @Nullable Object decode(TablePlan plan, int column, CopyFields fields, int field, String chunk) {
		try {
			byte[] source = fields.source(field);
			int offset = fields.offset(field);
			int length = fields.length(field);
			return this.binary ? plan.decoders[column].decodeBinary(source, offset, length)
					: plan.decoders[column].decodeText(source, offset, length);
		}
		catch (RuntimeException ex) {
			boolean valueFree = ex instanceof ValueDecodingException;
			throw new SnapshotReadException(
					"Cannot decode column '" + plan.columnNames.get(column) + "' of table " + plan.table + " (type OID "
							+ Integer.toUnsignedString(plan.typeOids[column]) + ") in " + chunk
							+ (valueFree ? "" : ": decoder failed with " + ex.getClass().getName()),
					plan.table, chunk, valueFree ? ex : null);
		}
	}

	private long relationOid(CopyFields fields, int field) {
		if (fields.isNull(field)) {
			throw new CopyFormatException("NULL tableoid", 0);
		}
		byte[] source = fields.source(field);
		int offset = fields.offset(field);
		int length = fields.length(field);
		if (this.binary) {
			if (length != 4) {
				throw new CopyFormatException("tableoid of " + length + " bytes", 0);
			}
			return Integer.toUnsignedLong(int32(source, offset));
		}
		return digits(source, offset, offset + length, "tableoid");
	}

	/**
	 * Returns the id of a row whose {@code ctid} is binary: {@code prefix block.offset}.
	 */
	private static String binaryTid(String prefix, CopyFields fields, int field) {
		if (fields.isNull(field)) {
			throw new CopyFormatException("NULL ctid", 0);
		}
		if (fields.length(field) != 6) {
			throw new CopyFormatException("ctid of " + fields.length(field) + " bytes", 0);
		}
		byte[] source = fields.source(field);
		int at = fields.offset(field);
		long block = Integer.toUnsignedLong(int32(source, at));
		int offset = ((source[at + 4] & 0xFF) << 8) | (source[at + 5] & 0xFF);
		return prefix + block + "." + offset;
	}

	/** Returns the id of a row whose {@code ctid} is text, {@code (block,offset)}. */
	private static String textTid(String prefix, CopyFields fields, int field) {
		if (fields.isNull(field)) {
			throw new CopyFormatException("NULL ctid", 0);
		}
		byte[] source = fields.source(field);
		int from = fields.offset(field);
		int to = from + fields.length(field);
		int comma = from;
		while (comma < to && source[comma] != ',') {
			comma++;
		}
		if (to - from < 5 || source[from] != '(' || comma == to || source[to - 1] != ')') {
			throw new CopyFormatException("ctid not in (block,offset) form", 0);
		}
		return prefix + digits(source, from + 1, comma, "ctid") + "." + digits(source, comma + 1, to - 1, "ctid");
	}

	/** Parses a non-negative decimal number of at most 18 digits. */
	private static long digits(byte[] source, int from, int to, String what) {
		if (from == to || to - from > 18) {
			throw new CopyFormatException(what + " not a number", 0);
		}
		long value = 0;
		for (int i = from; i < to; i++) {
			int digit = source[i] - '0';
			if (digit < 0 || digit > 9) {
				throw new CopyFormatException(what + " not a number", 0);
			}
			value = value * 10 + digit;
		}
		return value;
	}

	private static int int32(byte[] b, int at) {
		return (b[at] << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
	}

}
