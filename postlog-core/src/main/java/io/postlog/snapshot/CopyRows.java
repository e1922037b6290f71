package io.postlog.snapshot;

import java.sql.SQLException;

/**
 * Splits {@code COPY} data into rows of raw field values: the bytes of the type's send
 * function (binary format) or of its output function after COPY's escaping is undone
 * (text format), {@code null} for SQL {@code NULL}. Not thread-safe.
 */
interface CopyRows {

	/**
	 * Reads the next row into {@code fields}.
	 * @param fields one slot per field, overwritten with a new array per field (or null)
	 * @return {@code false} at the end of the data
	 * @throws CopyFormatException if the data is malformed or has another field count
	 */
	boolean next(byte[][] fields) throws SQLException;

	static CopyRows of(CopyInput input, boolean binary) {
		return binary ? new BinaryCopyRows(input) : new TextCopyRows(input);
	}

}
