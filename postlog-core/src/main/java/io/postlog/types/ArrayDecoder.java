package io.postlog.types;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Decodes arrays of any element type into unmodifiable {@code List<Object>}s, nested for
 * each further dimension, SQL {@code NULL} elements kept as {@code null}, lower bounds
 * dropped. Text follows {@code array_out} (braces, quoting, backslash escapes, optional
 * {@code [lb:ub]=} decoration); binary follows {@code array_send}.
 */
final class ArrayDecoder extends BuiltinDecoder {

	/** The server's limit on array dimensions ({@code MAXDIM}). */
	private static final int MAX_DIMENSIONS = 6;

	private final ValueDecoder element;

	private final byte delimiter;

	ArrayDecoder(int oid, ValueDecoder element) {
		this(oid, element, ',');
	}

	ArrayDecoder(int oid, ValueDecoder element, char delimiter) {
		super(oid);
		this.element = element;
		this.delimiter = (byte) delimiter;
	}

	@Override
	Object text(byte[] utf8) {
		return new TextParser(utf8).parse();
	}

	@Override
	Object binary(byte[] value) {
		if (value.length < 12) {
			throw malformed("header needs 12 bytes but got " + value.length);
		}
		int dimensions = int32(value, 0);
		int flags = int32(value, 4);
		if (dimensions < 0 || dimensions > MAX_DIMENSIONS) {
			throw malformed("invalid number of dimensions " + dimensions);
		}
		if (flags != 0 && flags != 1) {
			throw malformed("invalid flags");
		}
		if (dimensions == 0) {
			if (value.length != 12) {
				throw malformed("empty array has trailing bytes");
			}
			return List.of();
		}
		int offset = 12;
		if (value.length < offset + 8 * dimensions) {
			throw malformed("dimensions are truncated");
		}
		int[] lengths = new int[dimensions];
		long total = 1;
		for (int i = 0; i < dimensions; i++) {
			lengths[i] = int32(value, offset);
			offset += 8;
			if (lengths[i] < 0) {
				throw malformed("negative dimension length");
			}
			total *= lengths[i];
			// Every element takes at least its 4-byte length, which bounds what is
			// allocated.
			if (total * 4 > value.length - offset) {
				throw malformed("more elements than bytes");
			}
		}
		BinaryReader reader = new BinaryReader(value, offset);
		List<@Nullable Object> result = reader.level(lengths, 0);
		if (reader.offset != value.length) {
			throw malformed("trailing bytes after the elements");
		}
		return result;
	}

	private ValueDecodingException elementFailed(ValueDecodingException ex) {
		return new ValueDecodingException(this.oid,
				"element of type OID " + Integer.toUnsignedString(ex.typeOid()) + " is malformed: " + ex.reason());
	}

	private final class BinaryReader {

		private final byte[] value;

		private int offset;

		BinaryReader(byte[] value, int offset) {
			this.value = value;
			this.offset = offset;
		}

		List<@Nullable Object> level(int[] lengths, int dimension) {
			int length = lengths[dimension];
			@Nullable Object[] items = new Object[length];
			boolean last = dimension == lengths.length - 1;
			for (int i = 0; i < length; i++) {
				items[i] = last ? element() : level(lengths, dimension + 1);
			}
			return Collections.unmodifiableList(Arrays.asList(items));
		}

		private @Nullable Object element() {
			if (this.value.length - this.offset < 4) {
				throw malformed("element length is truncated");
			}
			int length = int32(this.value, this.offset);
			this.offset += 4;
			if (length == -1) {
				return null;
			}
			if (length < 0 || length > this.value.length - this.offset) {
				throw malformed("element length out of range");
			}
			byte[] bytes = Arrays.copyOfRange(this.value, this.offset, this.offset + length);
			this.offset += length;
			try {
				return ArrayDecoder.this.element.decodeBinary(bytes);
			}
			catch (ValueDecodingException ex) {
				throw elementFailed(ex);
			}
		}

	}

	/** A recursive-descent reader of {@code array_out}'s text, bounded to six levels. */
	private final class TextParser {

		private final byte[] text;

		private int pos;

		private byte[] buffer = new byte[32];

		TextParser(byte[] text) {
			this.text = text;
		}

		Object parse() {
			skipBlanks();
			if (this.pos < this.text.length && this.text[this.pos] == '[') {
				skipDimensions();
			}
			skipBlanks();
			List<@Nullable Object> result = level(1);
			skipBlanks();
			if (this.pos != this.text.length) {
				throw malformed("unexpected character after the array at offset " + this.pos);
			}
			return result;
		}

		/**
		 * Lower bounds are not kept, so {@code [lb:ub]...=} is only checked and skipped.
		 */
		private void skipDimensions() {
			int dimensions = 0;
			while (this.pos < this.text.length && this.text[this.pos] == '[') {
				if (++dimensions > MAX_DIMENSIONS) {
					throw malformed("too many dimensions");
				}
				this.pos++;
				bound();
				if (this.pos < this.text.length && this.text[this.pos] == ':') {
					this.pos++;
					bound();
				}
				expect(']');
			}
			expect('=');
		}

		private void bound() {
			if (this.pos < this.text.length && (this.text[this.pos] == '-' || this.text[this.pos] == '+')) {
				this.pos++;
			}
			int start = this.pos;
			while (this.pos < this.text.length && Ascii.isDigit(this.text[this.pos])) {
				this.pos++;
			}
			if (this.pos == start) {
				throw malformed("expected a bound at offset " + start);
			}
		}

		private List<@Nullable Object> level(int depth) {
			if (depth > MAX_DIMENSIONS) {
				throw malformed("too many dimensions");
			}
			expect('{');
			List<@Nullable Object> items = new ArrayList<>();
			skipBlanks();
			if (this.pos < this.text.length && this.text[this.pos] == '}') {
				this.pos++;
				return Collections.unmodifiableList(items);
			}
			while (true) {
				skipBlanks();
				if (this.pos < this.text.length && this.text[this.pos] == '{') {
					items.add(level(depth + 1));
				}
				else {
					items.add(element());
				}
				skipBlanks();
				if (this.pos >= this.text.length) {
					throw malformed("unterminated array");
				}
				byte c = this.text[this.pos++];
				if (c == '}') {
					return Collections.unmodifiableList(items);
				}
				if (c != ArrayDecoder.this.delimiter) {
					throw malformed("expected a delimiter or '}' at offset " + (this.pos - 1));
				}
			}
		}

		private @Nullable Object element() {
			int length = 0;
			boolean quoted = false;
			boolean escaped = false;
			// Trailing blanks of an unquoted element are dropped, escaped ones kept.
			int kept = 0;
			if (this.pos < this.text.length && this.text[this.pos] == '"') {
				quoted = true;
				this.pos++;
				while (true) {
					if (this.pos >= this.text.length) {
						throw malformed("unterminated quoted element");
					}
					byte c = this.text[this.pos++];
					if (c == '"') {
						break;
					}
					if (c == '\\') {
						if (this.pos >= this.text.length) {
							throw malformed("unterminated escape");
						}
						c = this.text[this.pos++];
					}
					length = put(length, c);
				}
				kept = length;
			}
			else {
				while (this.pos < this.text.length) {
					byte c = this.text[this.pos];
					if (c == ArrayDecoder.this.delimiter || c == '}') {
						break;
					}
					if (c == '{' || c == '"') {
						throw malformed("unexpected character in an unquoted element at offset " + this.pos);
					}
					this.pos++;
					if (c == '\\') {
						if (this.pos >= this.text.length) {
							throw malformed("unterminated escape");
						}
						escaped = true;
						length = put(length, this.text[this.pos++]);
						kept = length;
					}
					else {
						length = put(length, c);
						if (!isBlank(c)) {
							kept = length;
						}
					}
				}
				if (kept == 0) {
					throw malformed("empty unquoted element at offset " + this.pos);
				}
			}
			if (!quoted && !escaped && kept == 4 && isNull()) {
				return null;
			}
			try {
				return ArrayDecoder.this.element.decodeText(Arrays.copyOf(this.buffer, kept));
			}
			catch (ValueDecodingException ex) {
				throw elementFailed(ex);
			}
		}

		private boolean isNull() {
			byte[] b = this.buffer;
			return (b[0] == 'N' || b[0] == 'n') && (b[1] == 'U' || b[1] == 'u') && (b[2] == 'L' || b[2] == 'l')
					&& (b[3] == 'L' || b[3] == 'l');
		}

		private int put(int length, byte c) {
			if (length == this.buffer.length) {
				this.buffer = Arrays.copyOf(this.buffer, length * 2);
			}
			this.buffer[length] = c;
			return length + 1;
		}

		private void skipBlanks() {
			while (this.pos < this.text.length && isBlank(this.text[this.pos])) {
				this.pos++;
			}
		}

		private void expect(char c) {
			if (this.pos >= this.text.length || this.text[this.pos] != c) {
				throw malformed("expected '" + c + "' at offset " + this.pos);
			}
			this.pos++;
		}

		private static boolean isBlank(byte c) {
			return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\u000B' || c == '\f';
		}

	}

}
