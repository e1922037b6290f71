package io.postlog.snapshot;

import java.sql.SQLException;

/**
 * Rows of {@code COPY ... (FORMAT binary)}: the 11-byte signature, a flags word and a
 * header extension, then per row a 16-bit field count and per field a 32-bit length
 * ({@code -1} for NULL) and that many bytes, and a field count of {@code -1} as trailer
 * (PostgreSQL documentation, "COPY", Binary Format).
 */
final class BinaryCopyRows implements CopyRows {

	private static final byte[] SIGNATURE = { 'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0 };

	/** Bit 16 of the flags: rows carry OIDs, which no snapshot query asks for. */
	private static final int HAS_OIDS = 1 << 16;

	private final CopyInput input;

	private boolean started;

	private boolean finished;

	BinaryCopyRows(CopyInput input) {
		this.input = input;
	}

	@Override
	public boolean next(CopyFields fields) throws SQLException {
		if (this.finished) {
			fields.clear();
			return false;
		}
		if (!this.started) {
			header();
			this.started = true;
		}
		long rowStart = this.input.offset();
		int count = this.input.readInt16();
		if (count == -1) {
			this.finished = true;
			fields.clear();
			if (!this.input.atEnd()) {
				throw new CopyFormatException("data after the trailer", this.input.offset());
			}
			return false;
		}
		if (count != fields.count()) {
			throw new CopyFormatException("row has " + count + " fields, expected " + fields.count(), rowStart);
		}
		for (int i = 0; i < count; i++) {
			int length = this.input.readInt32();
			if (length == -1) {
				fields.setNull(i);
			}
			else {
				this.input.readField(length, fields, i);
			}
		}
		return true;
	}

	private void header() throws SQLException {
		for (byte expected : SIGNATURE) {
			if ((byte) this.input.readByte() != expected) {
				throw new CopyFormatException("not a binary COPY signature", this.input.offset() - 1);
			}
		}
		int flags = this.input.readInt32();
		if ((flags & HAS_OIDS) != 0) {
			throw new CopyFormatException("rows carry OIDs", this.input.offset() - 4);
		}
		int extension = this.input.readInt32();
		this.input.readBytes(extension);
	}

}
