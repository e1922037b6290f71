package io.postlog.pgoutput;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The column values of one row, in the relation's column order (protocol section
 * "TupleData"). Immutable. A tuple decoded from a message keeps each value as a slice of
 * the message's array and makes the {@link TupleValue} objects only when asked, so that
 * decoding a row allocates little.
 */
public final class TupleData {

	static final int NULL = 0;

	static final int UNCHANGED_TOAST = 1;

	static final int TEXT = 2;

	static final int BINARY = 3;

	private final byte @Nullable [] source;

	/**
	 * Per column: the kind in the top two bits, the length in the next 31, the offset in
	 * the low 31.
	 */
	private final long @Nullable [] cells;

	private @Nullable List<TupleValue> values;

	/**
	 * Creates tuple data.
	 * @param values one value per column (copied)
	 */
	public TupleData(List<TupleValue> values) {
		this.source = null;
		this.cells = null;
		this.values = List.copyOf(values);
	}

	private TupleData(byte[] source, long[] cells) {
		this.source = source;
		this.cells = cells;
	}

	/**
	 * Creates a tuple over a message's array.
	 * @param source the message's array
	 * @param cells per column, from {@link #cell}
	 * @return the tuple
	 */
	static TupleData of(byte[] source, long[] cells) {
		return new TupleData(source, cells);
	}

	static long nullCell() {
		return (long) NULL << 62;
	}

	static long unchangedToastCell() {
		return (long) UNCHANGED_TOAST << 62;
	}

	static long cell(boolean binary, int offset, int length) {
		return ((long) (binary ? BINARY : TEXT) << 62) | ((long) length << 31) | offset;
	}

	/**
	 * Returns one value per column.
	 * @return the values
	 */
	public List<TupleValue> values() {
		List<TupleValue> materialized = this.values;
		if (materialized == null) {
			List<TupleValue> list = new ArrayList<>(size());
			for (int i = 0; i < size(); i++) {
				list.add(get(i));
			}
			materialized = List.copyOf(list);
			this.values = materialized;
		}
		return materialized;
	}

	/**
	 * Returns the number of columns.
	 * @return the column count
	 */
	public int size() {
		return (this.cells != null) ? this.cells.length : this.values.size();
	}

	/**
	 * Returns one column's value.
	 * @param index the 0-based column position
	 * @return the value
	 */
	public TupleValue get(int index) {
		if (this.cells == null) {
			return this.values.get(index);
		}
		long cell = this.cells[index];
		return switch (kind(cell)) {
			case NULL -> TupleValue.NULL;
			case UNCHANGED_TOAST -> TupleValue.UNCHANGED_TOAST;
			case TEXT -> new TupleValue.Text(this.source, offset(cell), length(cell));
			default -> new TupleValue.Binary(this.source, offset(cell), length(cell));
		};
	}

	/**
	 * Returns one column's kind without making a {@link TupleValue} for it.
	 * @param index the 0-based column position
	 * @return {@link #NULL}, {@link #UNCHANGED_TOAST}, {@link #TEXT} or {@link #BINARY}
	 */
	int kindAt(int index) {
		if (this.cells != null) {
			return kind(this.cells[index]);
		}
		TupleValue value = this.values.get(index);
		return (value instanceof TupleValue.Binary) ? BINARY : (value instanceof TupleValue.Text) ? TEXT
				: (value instanceof TupleValue.UnchangedToast) ? UNCHANGED_TOAST : NULL;
	}

	/** Returns the array holding a text or binary column's bytes. */
	byte[] sourceAt(int index) {
		if (this.cells != null) {
			return this.source;
		}
		TupleValue value = this.values.get(index);
		return (value instanceof TupleValue.Binary binary) ? binary.source() : ((TupleValue.Text) value).source();
	}

	/** Returns where a text or binary column's bytes start in {@link #sourceAt}. */
	int offsetAt(int index) {
		if (this.cells != null) {
			return offset(this.cells[index]);
		}
		TupleValue value = this.values.get(index);
		return (value instanceof TupleValue.Binary binary) ? binary.offset() : ((TupleValue.Text) value).offset();
	}

	/** Returns the length of a text or binary column's bytes. */
	int lengthAt(int index) {
		if (this.cells != null) {
			return length(this.cells[index]);
		}
		TupleValue value = this.values.get(index);
		return (value instanceof TupleValue.Binary binary) ? binary.length() : ((TupleValue.Text) value).length();
	}

	/**
	 * Returns a hash of one column's bytes (0 for NULL and unchanged TOAST), equal for
	 * equal values.
	 */
	int hash(int index) {
		if (this.cells == null) {
			TupleValue value = this.values.get(index);
			return ((value instanceof TupleValue.Binary) || (value instanceof TupleValue.Text)) ? value.hashCode() : 0;
		}
		long cell = this.cells[index];
		int kind = kind(cell);
		return (kind == TEXT || kind == BINARY) ? Slices.hash(this.source, offset(cell), length(cell)) : 0;
	}

	private static int kind(long cell) {
		return (int) (cell >>> 62);
	}

	private static int length(long cell) {
		return (int) ((cell >>> 31) & 0x7FFF_FFFFL);
	}

	private static int offset(long cell) {
		return (int) (cell & 0x7FFF_FFFFL);
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return this == other || (other instanceof TupleData tuple && values().equals(tuple.values()));
	}

	@Override
	public int hashCode() {
		return values().hashCode();
	}

	@Override
	public String toString() {
		return "TupleData[" + size() + " columns]";
	}

}
