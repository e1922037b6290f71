package io.postlog.snapshot;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * The fields of the row a {@link CopyRows} read last, each a slice of an array: of the
 * CopyData message that carried the row (the usual case: nothing is copied, so a large
 * value is held once, as pgoutput's slices hold it), or of a copy when a field was split
 * across messages. Valid until the next read, which may overwrite the arrays (text rows
 * are unescaped in place); a field to keep is {@link #copy copied}. Not thread-safe.
 */
final class CopyFields {

	private static final byte[] EMPTY = new byte[0];

	private final byte[][] sources;

	private final int[] offsets;

	/** Per field, its length, or {@code -1} for SQL {@code NULL}. */
	private final int[] lengths;

	CopyFields(int count) {
		this.sources = new byte[count][];
		this.offsets = new int[count];
		this.lengths = new int[count];
		clear();
	}

	int count() {
		return this.lengths.length;
	}

	boolean isNull(int field) {
		return this.lengths[field] < 0;
	}

	/** Returns the array holding a field; meaningless for SQL {@code NULL}. */
	byte[] source(int field) {
		return this.sources[field];
	}

	int offset(int field) {
		return this.offsets[field];
	}

	/** Returns a field's length in bytes, {@code -1} for SQL {@code NULL}. */
	int length(int field) {
		return this.lengths[field];
	}

	void set(int field, byte[] source, int offset, int length) {
		this.sources[field] = source;
		this.offsets[field] = offset;
		this.lengths[field] = length;
	}

	void setNull(int field) {
		this.sources[field] = EMPTY;
		this.offsets[field] = 0;
		this.lengths[field] = -1;
	}

	/**
	 * Sets every field to SQL {@code NULL}, letting go of the arrays the last row held.
	 */
	void clear() {
		for (int i = 0; i < this.lengths.length; i++) {
			setNull(i);
		}
	}

	/** Returns a copy of a field's bytes, {@code null} for SQL {@code NULL}. */
	byte @Nullable [] copy(int field) {
		int length = this.lengths[field];
		if (length < 0) {
			return null;
		}
		int offset = this.offsets[field];
		return Arrays.copyOfRange(this.sources[field], offset, offset + length);
	}

	/**
	 * Returns a field's hash, the {@link Arrays#hashCode(byte[])} of its bytes (as a
	 * streamed value's slice hashes), {@code 0} for SQL {@code NULL}.
	 */
	int hash(int field) {
		int length = this.lengths[field];
		if (length < 0) {
			return 0;
		}
		byte[] source = this.sources[field];
		int hash = 1;
		for (int i = this.offsets[field], end = i + length; i < end; i++) {
			hash = 31 * hash + source[i];
		}
		return hash;
	}

	/**
	 * Returns about the bytes the row's values take: their lengths and 16 per value, 8
	 * per {@code NULL}.
	 */
	long size() {
		long size = 0;
		for (int length : this.lengths) {
			size += (length >= 0) ? length + 16 : 8;
		}
		return size;
	}

}
