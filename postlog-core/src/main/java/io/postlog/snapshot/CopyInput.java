package io.postlog.snapshot;

import java.sql.SQLException;

import org.jspecify.annotations.Nullable;

/**
 * The bytes of one {@code COPY ... TO STDOUT}, as the server sends them in CopyData
 * messages (usually one row per message, but nothing here relies on that): bounds-checked
 * reads across message boundaries. Not thread-safe: one per copy, on its reader's thread.
 */
final class CopyInput {

	private static final byte[] EMPTY = new byte[0];

	private final Source source;

	private byte[] buffer = EMPTY;

	private int position;

	/** Bytes of earlier messages, for the offsets in errors. */
	private long consumed;

	private boolean ended;

	CopyInput(Source source) {
		this.source = source;
	}

	/**
	 * Returns whether no byte is left: the server ended the copy and every byte was read.
	 */
	boolean atEnd() throws SQLException {
		return !available();
	}

	long offset() {
		return this.consumed + this.position;
	}

	int readByte() throws SQLException {
		if (!available()) {
			throw new CopyFormatException("unexpected end of data", offset());
		}
		return this.buffer[this.position++] & 0xFF;
	}

	int readInt16() throws SQLException {
		if (this.buffer.length - this.position >= 2) {
			int value = (short) (((this.buffer[this.position] & 0xFF) << 8) | (this.buffer[this.position + 1] & 0xFF));
			this.position += 2;
			return value;
		}
		return (short) ((readByte() << 8) | readByte());
	}

	int readInt32() throws SQLException {
		if (this.buffer.length - this.position >= 4) {
			byte[] b = this.buffer;
			int at = this.position;
			this.position += 4;
			return (b[at] << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
		}
		return (readByte() << 24) | (readByte() << 16) | (readByte() << 8) | readByte();
	}

	byte[] readBytes(int length) throws SQLException {
		if (length < 0) {
			throw new CopyFormatException("negative length " + length, offset());
		}
		byte[] bytes = new byte[length];
		int filled = 0;
		while (filled < length) {
			if (!available()) {
				throw new CopyFormatException("unexpected end of data in a " + length + "-byte value", offset());
			}
			int count = Math.min(length - filled, this.buffer.length - this.position);
			System.arraycopy(this.buffer, this.position, bytes, filled, count);
			this.position += count;
			filled += count;
		}
		return bytes;
	}

	/**
	 * Reads a field of {@code length} bytes into {@code fields}: as a slice of the
	 * current message when it holds them all (PostgreSQL sends a row per message), else
	 * as a copy.
	 */
	void readField(int length, CopyFields fields, int field) throws SQLException {
		if (length >= 0 && this.buffer.length - this.position >= length) {
			fields.set(field, this.buffer, this.position, length);
			this.position += length;
			return;
		}
		fields.set(field, readBytes(length), 0, length);
	}

	/**
	 * Returns the current message's bytes from the position on, at least one, without
	 * consuming them; {@code null} at the end of the data. For scanning text rows.
	 */
	byte @Nullable [] peekBuffer() throws SQLException {
		return available() ? this.buffer : null;
	}

	int position() {
		return this.position;
	}

	void skipTo(int position) {
		this.position = position;
	}

	private boolean available() throws SQLException {
		while (this.position >= this.buffer.length) {
			if (this.ended) {
				return false;
			}
			byte[] next = this.source.next();
			this.consumed += this.buffer.length;
			if (next == null) {
				this.ended = true;
				this.buffer = EMPTY;
				this.position = 0;
				return false;
			}
			this.buffer = next;
			this.position = 0;
		}
		return true;
	}

	/**
	 * Where the bytes come from: pgjdbc's {@code CopyOut.readFromCopy()}.
	 */
	@FunctionalInterface
	interface Source {

		/**
		 * Returns the next CopyData message's bytes, or {@code null} when the copy ended.
		 */
		byte @Nullable [] next() throws SQLException;

	}

}
