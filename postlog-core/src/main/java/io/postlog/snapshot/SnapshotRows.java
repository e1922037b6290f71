package io.postlog.snapshot;

import java.nio.charset.StandardCharsets;
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
	 * Builds the change of one row.
	 * @throws SnapshotReadException if a value does not decode (naming the column and its
	 * type OID, not the value)
	 */
	Change change(TablePlan plan, byte[][] fields, int index, String chunk) {
		int system = plan.systemFields();
		long relationOid = plan.partitioned ? relationOid(fields[0]) : plan.oid;
		String tid = tid(fields[system - 1]);
		@Nullable Object[] values = new Object[fields.length - system];
		for (int i = 0; i < values.length; i++) {
			byte[] field = fields[system + i];
			values[i] = (field != null) ? decode(plan, i, field, chunk) : null;
		}
		return new Change(Operation.SNAPSHOT, plan.table, null, Row.of(plan.columns, values), 0L, this.consistentPoint,
				this.createdAt, index, this.idPrefix + relationOid + "/" + tid);
	}

	private @Nullable Object decode(TablePlan plan, int column, byte[] field, String chunk) {
		try {
			return this.binary ? plan.decoders[column].decodeBinary(field) : plan.decoders[column].decodeText(field);
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

	private long relationOid(byte @Nullable [] field) {
		if (field == null) {
			throw new CopyFormatException("NULL tableoid", 0);
		}
		if (this.binary) {
			if (field.length != 4) {
				throw new CopyFormatException("tableoid of " + field.length + " bytes", 0);
			}
			return Integer.toUnsignedLong(int32(field, 0));
		}
		return Long.parseLong(ascii(field));
	}

	/** Returns {@code block.offset} of a {@code ctid}. */
	private String tid(byte @Nullable [] field) {
		if (field == null) {
			throw new CopyFormatException("NULL ctid", 0);
		}
		if (this.binary) {
			if (field.length != 6) {
				throw new CopyFormatException("ctid of " + field.length + " bytes", 0);
			}
			long block = Integer.toUnsignedLong(int32(field, 0));
			int offset = ((field[4] & 0xFF) << 8) | (field[5] & 0xFF);
			return block + "." + offset;
		}
		String text = ascii(field);
		int comma = text.indexOf(',');
		if (text.length() < 5 || text.charAt(0) != '(' || comma < 0 || text.charAt(text.length() - 1) != ')') {
			throw new CopyFormatException("ctid not in (block,offset) form", 0);
		}
		return Long.parseLong(text, 1, comma, 10) + "." + Integer.parseInt(text, comma + 1, text.length() - 1, 10);
	}

	private static String ascii(byte[] field) {
		return new String(field, StandardCharsets.US_ASCII);
	}

	private static int int32(byte[] b, int at) {
		return (b[at] << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
	}

}
