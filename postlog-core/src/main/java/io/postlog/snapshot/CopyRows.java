package io.postlog.snapshot;

import java.sql.SQLException;

/**
 * Splits {@code COPY} data into rows of raw field values: the bytes of the type's send
 * function (binary format) or of its output function after COPY's escaping is undone
 * (text format), or SQL {@code NULL}. A field is a slice of the CopyData message that
 * carried it, not a copy. Not thread-safe.
 */
interface CopyRows {

	/**
	 * Reads the next row into {@code fields}, valid until the next call; at the end of
	 * the data, clears them.
	 * @param fields one slot per field
	 * @return {@code false} at the end of the data
	 * @throws CopyFormatException if the data is malformed or has another field count
	 */
	boolean next(CopyFields fields) throws SQLException;

	static CopyRows of(CopyInput input, boolean binary) {
		return binary ? new BinaryCopyRows(input) : new TextCopyRows(input);
	}

}
