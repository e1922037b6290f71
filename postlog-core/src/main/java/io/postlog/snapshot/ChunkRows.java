package io.postlog.snapshot;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.postlog.Row;
import org.jspecify.annotations.Nullable;

/**
 * The rows of one backfill chunk, in key order, held as they were read: each row's values
 * as the bytes {@code COPY} gave them (a type's send format, or its output text once
 * COPY's escaping is undone), packed one after the other into a few large arrays, and
 * decoded only when a row is delivered.
 * <p>
 * Why bytes: a chunk waits for its high watermark and then goes out a slice at a time
 * while the next chunk is read, so two chunks are in memory at once. Decoded, that is
 * several small objects per row (the row, its values, their strings and arrays), which
 * each young collection of the JVM copies while the stream's own changes wait; held as
 * bytes, it is one array per {@value #SLAB} bytes of values, and a row's objects live
 * only from its slice's dispatch to its listener.
 * <p>
 * A row's key columns are decoded as the row is read (a value the key's type cannot
 * decode fails the read); other values decode on {@link #row}, which throws
 * {@link SnapshotReadException} for a value that does not. Immutable; {@link #row} and
 * {@link #key} may run on any thread, since value decoders are stateless.
 */
public final class ChunkRows {

	/** The size of the arrays rows are packed into; a larger row gets one of its own. */
	static final int SLAB = 256 * 1024;

	private static final ChunkRows EMPTY = new ChunkRows(null, false, new byte[0][], new long[0], new int[0],
			new int[0]);

	private final @Nullable BackfillTable table;

	private final boolean binary;

	private final byte[][] slabs;

	/** Per row, its array's index in the high 32 bits and its offset in the low. */
	private final long[] starts;

	private final int[] routes;

	private final int[] sizes;

	private ChunkRows(@Nullable BackfillTable table, boolean binary, byte[][] slabs, long[] starts, int[] routes,
			int[] sizes) {
		this.table = table;
		this.binary = binary;
		this.slabs = slabs;
		this.starts = starts;
		this.routes = routes;
		this.sizes = sizes;
	}

	/**
	 * Returns a chunk without rows.
	 * @return the empty chunk
	 */
	public static ChunkRows empty() {
		return EMPTY;
	}

	/**
	 * Returns the number of rows.
	 * @return the rows
	 */
	public int size() {
		return this.starts.length;
	}

	/**
	 * Returns whether the chunk has no row.
	 * @return whether it is empty
	 */
	public boolean isEmpty() {
		return this.starts.length == 0;
	}

	/**
	 * Decodes a row: every published column as the stream decodes it. Each call decodes
	 * again and returns a new row.
	 * @param index the row's position in key order
	 * @return the row
	 * @throws SnapshotReadException if a value does not decode (naming the table, column
	 * and type, never the value)
	 */
	public Row row(int index) {
		TablePlan plan = table().plan;
		@Nullable Object[] values = new Object[plan.columnNames.size()];
		byte[] slab = this.slabs[(int) (this.starts[index] >>> 32)];
		int at = (int) this.starts[index];
		for (int column = 0; column < values.length; column++) {
			int length = readInt(slab, at);
			at += 4;
			if (length >= 0) {
				values[column] = BackfillReader.decode(plan, column, slab, at, length, this.binary, "a backfill chunk");
				at += length;
			}
		}
		return Row.ofOwned(plan.columns, values);
	}

	/**
	 * Returns a row's key, as {@link BackfillTable#keyOf} gives a streamed change's: its
	 * key columns decoded again, in the key's index order.
	 * @param index the row's position in key order
	 * @return the key
	 */
	public List<@Nullable Object> key(int index) {
		BackfillTable table = table();
		List<@Nullable Object> key = new ArrayList<>(table.keyPositions.length);
		for (int position : table.keyPositions) {
			key.add(BackfillTable.keyValue(keyValue(table, index, position)));
		}
		return key;
	}

	/**
	 * Returns the lane routing key a streamed change of the row's key has.
	 * @param index the row's position in key order
	 * @return the routing key
	 */
	public int route(int index) {
		return this.routes[index];
	}

	/**
	 * Returns about the bytes a row's values took as read, which bounds what lanes queue.
	 * @param index the row's position in key order
	 * @return the bytes
	 */
	public int bytes(int index) {
		return this.sizes[index];
	}

	private @Nullable Object keyValue(BackfillTable table, int index, int column) {
		byte[] slab = this.slabs[(int) (this.starts[index] >>> 32)];
		int at = (int) this.starts[index];
		for (int i = 0; i < column; i++) {
			int length = readInt(slab, at);
			at += 4 + Math.max(length, 0);
		}
		int length = readInt(slab, at);
		return (length >= 0)
				? BackfillReader.decode(table.plan, column, slab, at + 4, length, this.binary, "a backfill chunk")
				: null;
	}

	private BackfillTable table() {
		BackfillTable table = this.table;
		if (table == null) {
			throw new IndexOutOfBoundsException("The chunk has no rows");
		}
		return table;
	}

	private static int readInt(byte[] bytes, int at) {
		return (bytes[at] << 24) | ((bytes[at + 1] & 0xFF) << 16) | ((bytes[at + 2] & 0xFF) << 8)
				| (bytes[at + 3] & 0xFF);
	}

	/**
	 * Packs rows as they are read: each value's length ({@code -1} for SQL {@code NULL})
	 * as four bytes and then its bytes. Not thread-safe.
	 */
	static final class Builder {

		private final BackfillTable table;

		private final boolean binary;

		private final List<byte[]> slabs = new ArrayList<>();

		private byte[] slab = new byte[0];

		private int used;

		private long[] starts = new long[64];

		private int[] routes = new int[64];

		private int[] sizes = new int[64];

		private int count;

		Builder(BackfillTable table, boolean binary) {
			this.table = table;
			this.binary = binary;
		}

		/**
		 * Adds the row whose published columns are {@code fields} from {@code first} on.
		 */
		void add(CopyFields fields, int first, int route, int size) {
			int columns = this.table.plan.columnNames.size();
			int length = 0;
			for (int i = 0; i < columns; i++) {
				length += 4 + Math.max(fields.length(first + i), 0);
			}
			if (this.slab.length - this.used < length) {
				this.slab = new byte[Math.max(SLAB, length)];
				this.slabs.add(this.slab);
				this.used = 0;
			}
			if (this.count == this.starts.length) {
				int capacity = this.count * 2;
				this.starts = Arrays.copyOf(this.starts, capacity);
				this.routes = Arrays.copyOf(this.routes, capacity);
				this.sizes = Arrays.copyOf(this.sizes, capacity);
			}
			this.starts[this.count] = ((long) (this.slabs.size() - 1) << 32) | this.used;
			this.routes[this.count] = route;
			this.sizes[this.count] = size;
			this.count++;
			byte[] slab = this.slab;
			int at = this.used;
			for (int i = 0; i < columns; i++) {
				int valueLength = fields.length(first + i);
				slab[at] = (byte) (valueLength >>> 24);
				slab[at + 1] = (byte) (valueLength >>> 16);
				slab[at + 2] = (byte) (valueLength >>> 8);
				slab[at + 3] = (byte) valueLength;
				at += 4;
				if (valueLength > 0) {
					System.arraycopy(fields.source(first + i), fields.offset(first + i), slab, at, valueLength);
					at += valueLength;
				}
			}
			this.used = at;
		}

		ChunkRows build() {
			if (this.count == 0) {
				return EMPTY;
			}
			return new ChunkRows(this.table, this.binary, this.slabs.toArray(new byte[0][]),
					Arrays.copyOf(this.starts, this.count), Arrays.copyOf(this.routes, this.count),
					Arrays.copyOf(this.sizes, this.count));
		}

	}

}
