package io.postlog.snapshot;

import java.io.ByteArrayOutputStream;
import java.sql.SQLException;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * Rows of {@code COPY ... (FORMAT text)}: fields separated by tabs, rows ended by
 * newlines, {@code \N} for NULL, and backslash escapes for backslash, tab, newline,
 * carriage return, backspace, form feed and vertical tab (and, when reading, octal
 * {@code \NNN} and hexadecimal {@code \xNN}) (PostgreSQL documentation, "COPY", Text
 * Format). pgoutput's text values carry no such escaping: once it is undone, the bytes
 * are the type's output function's, as pgoutput sends them.
 */
final class TextCopyRows implements CopyRows {

	private final CopyInput input;

	private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);

	TextCopyRows(CopyInput input) {
		this.input = input;
	}

	@Override
	public boolean next(byte[][] fields) throws SQLException {
		long rowStart = this.input.offset();
		byte[] row = readLine();
		if (row == null) {
			return false;
		}
		int field = 0;
		int start = 0;
		for (int i = 0; i <= row.length; i++) {
			if (i == row.length || row[i] == '\t') {
				if (field == fields.length) {
					throw new CopyFormatException("row has more than " + fields.length + " fields", rowStart);
				}
				fields[field++] = unescape(row, start, i, rowStart);
				start = i + 1;
			}
		}
		if (field != fields.length) {
			throw new CopyFormatException("row has " + field + " fields, expected " + fields.length, rowStart);
		}
		return true;
	}

	/**
	 * Returns the next row without its newline; {@code null} at the end of the data.
	 */
	private byte @Nullable [] readLine() throws SQLException {
		this.line.reset();
		while (true) {
			byte[] buffer = this.input.peekBuffer();
			if (buffer == null) {
				if (this.line.size() > 0) {
					throw new CopyFormatException("row without a newline at the end of the data", this.input.offset());
				}
				return null;
			}
			int from = this.input.position();
			for (int i = from; i < buffer.length; i++) {
				if (buffer[i] == '\n') {
					this.input.skipTo(i + 1);
					if (this.line.size() == 0) {
						return Arrays.copyOfRange(buffer, from, i);
					}
					this.line.write(buffer, from, i - from);
					return this.line.toByteArray();
				}
			}
			this.line.write(buffer, from, buffer.length - from);
			this.input.skipTo(buffer.length);
		}
	}

	static byte @Nullable [] unescape(byte[] row, int start, int end, long rowStart) {
		if (end - start == 2 && row[start] == '\\' && row[start + 1] == 'N') {
			return null;
		}
		int backslash = -1;
		for (int i = start; i < end; i++) {
			if (row[i] == '\\') {
				backslash = i;
				break;
			}
		}
		if (backslash < 0) {
			return Arrays.copyOfRange(row, start, end);
		}
		ByteArrayOutputStream value = new ByteArrayOutputStream(end - start);
		value.write(row, start, backslash - start);
		int i = backslash;
		while (i < end) {
			byte b = row[i++];
			if (b != '\\') {
				value.write(b);
				continue;
			}
			if (i == end) {
				throw new CopyFormatException("backslash at the end of a field", rowStart + i);
			}
			byte c = row[i++];
			switch (c) {
				case 'b' -> value.write('\b');
				case 'f' -> value.write('\f');
				case 'n' -> value.write('\n');
				case 'r' -> value.write('\r');
				case 't' -> value.write('\t');
				case 'v' -> value.write(0x0B);
				case 'x' -> {
					int digits = 0;
					int code = 0;
					while (digits < 2 && i < end && Character.digit(row[i], 16) >= 0) {
						code = code * 16 + Character.digit(row[i++], 16);
						digits++;
					}
					if (digits == 0) {
						value.write('x');
					}
					else {
						value.write(code);
					}
				}
				default -> {
					if (c >= '0' && c <= '7') {
						int code = c - '0';
						int digits = 1;
						while (digits < 3 && i < end && row[i] >= '0' && row[i] <= '7') {
							code = code * 8 + (row[i++] - '0');
							digits++;
						}
						value.write(code & 0xFF);
					}
					else {
						value.write(c);
					}
				}
			}
		}
		return value.toByteArray();
	}

}
