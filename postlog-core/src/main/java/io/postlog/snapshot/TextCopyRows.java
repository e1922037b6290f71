package io.postlog.snapshot;

import java.sql.SQLException;
import java.util.Arrays;

/**
 * Rows of {@code COPY ... (FORMAT text)}: fields separated by tabs, rows ended by
 * newlines, {@code \N} for NULL, and backslash escapes for backslash, tab, newline,
 * carriage return, backspace, form feed and vertical tab (and, when reading, octal
 * {@code \NNN} and hexadecimal {@code \xNN}) (PostgreSQL documentation, "COPY", Text
 * Format). pgoutput's text values carry no such escaping: once it is undone, the bytes
 * are the type's output function's, as pgoutput sends them.
 * <p>
 * A row that lies in one CopyData message (PostgreSQL sends a row per message) is split
 * and unescaped in place, in the message's own array (an escape only ever shortens a
 * value), so that its fields are slices of it and a large value is held once; a row split
 * across messages is first gathered into an array of this reader's own.
 */
final class TextCopyRows implements CopyRows {

	private static final int INITIAL_LINE = 256;

	private final CopyInput input;

	/** A row gathered from several messages, in {@code [0, lineLength)}. */
	private byte[] line = new byte[0];

	private int lineLength;

	/** Where the row {@link #readLine()} found is: its array, start and end. */
	private byte[] row = this.line;

	private int rowFrom;

	private int rowTo;

	/** Where {@link #unescape} left the value it unescaped: its end. */
	private int valueEnd;

	TextCopyRows(CopyInput input) {
		this.input = input;
	}

	@Override
	public boolean next(CopyFields fields) throws SQLException {
		long rowStart = this.input.offset();
		if (!readLine()) {
			fields.clear();
			return false;
		}
		byte[] row = this.row;
		int to = this.rowTo;
		int count = fields.count();
		int field = 0;
		int i = this.rowFrom;
		while (true) {
			if (field == count) {
				throw new CopyFormatException("row has more than " + count + " fields", rowStart);
			}
			if (to - i >= 2 && row[i] == '\\' && row[i + 1] == 'N' && (i + 2 == to || row[i + 2] == '\t')) {
				fields.setNull(field++);
				i += 2;
			}
			else {
				int start = i;
				i = unescape(row, i, to, rowStart - this.rowFrom);
				fields.set(field++, row, start, this.valueEnd - start);
			}
			if (i == to) {
				break;
			}
			i++;
		}
		if (field != count) {
			throw new CopyFormatException("row has " + field + " fields, expected " + count, rowStart);
		}
		return true;
	}

	/**
	 * Finds the next row, without its newline: in the current message when it ends there,
	 * else gathered into {@link #line}.
	 * @return {@code false} at the end of the data
	 */
	private boolean readLine() throws SQLException {
		this.lineLength = 0;
		while (true) {
			byte[] buffer = this.input.peekBuffer();
			if (buffer == null) {
				if (this.lineLength > 0) {
					throw new CopyFormatException("row without a newline at the end of the data", this.input.offset());
				}
				return false;
			}
			int from = this.input.position();
			int newline = from;
			while (newline < buffer.length && buffer[newline] != '\n') {
				newline++;
			}
			if (newline < buffer.length) {
				this.input.skipTo(newline + 1);
				if (this.lineLength == 0) {
					this.row = buffer;
					this.rowFrom = from;
					this.rowTo = newline;
					return true;
				}
				gather(buffer, from, newline);
				this.row = this.line;
				this.rowFrom = 0;
				this.rowTo = this.lineLength;
				return true;
			}
			gather(buffer, from, buffer.length);
			this.input.skipTo(buffer.length);
		}
	}

	private void gather(byte[] buffer, int from, int to) {
		int needed = this.lineLength + (to - from);
		if (needed > this.line.length) {
			this.line = Arrays.copyOf(this.line, Math.max(needed, Math.max(INITIAL_LINE, 2 * this.line.length)));
		}
		System.arraycopy(buffer, from, this.line, this.lineLength, to - from);
		this.lineLength = needed;
	}

	/**
	 * Undoes the escaping of the field that starts at {@code from}, in place: the value
	 * is then {@code [from, valueEnd)}. Runs without a backslash are moved with one copy
	 * each, and not at all before the first backslash.
	 * @param base the data offset of index 0 of {@code row}, for errors
	 * @return where the field ends: the tab after it, or {@code to}
	 */
	private int unescape(byte[] row, int from, int to, long base) {
		int i = from;
		int write = from;
		int run = from;
		while (true) {
			while (i < to && row[i] != '\t' && row[i] != '\\') {
				i++;
			}
			if (write != run) {
				System.arraycopy(row, run, row, write, i - run);
			}
			write += i - run;
			if (i == to || row[i] == '\t') {
				this.valueEnd = write;
				return i;
			}
			i++;
			if (i == to || row[i] == '\t') {
				throw new CopyFormatException("backslash at the end of a field", base + i);
			}
			byte c = row[i++];
			switch (c) {
				case 'b' -> row[write++] = '\b';
				case 'f' -> row[write++] = '\f';
				case 'n' -> row[write++] = '\n';
				case 'r' -> row[write++] = '\r';
				case 't' -> row[write++] = '\t';
				case 'v' -> row[write++] = 0x0B;
				case 'x' -> {
					int digits = 0;
					int code = 0;
					while (digits < 2 && i < to && Character.digit(row[i], 16) >= 0) {
						code = code * 16 + Character.digit(row[i++], 16);
						digits++;
					}
					row[write++] = (byte) ((digits == 0) ? 'x' : code);
				}
				default -> {
					if (c >= '0' && c <= '7') {
						int code = c - '0';
						int digits = 1;
						while (digits < 3 && i < to && row[i] >= '0' && row[i] <= '7') {
							code = code * 8 + (row[i++] - '0');
							digits++;
						}
						row[write++] = (byte) code;
					}
					else {
						row[write++] = c;
					}
				}
			}
			run = i;
		}
	}

}
