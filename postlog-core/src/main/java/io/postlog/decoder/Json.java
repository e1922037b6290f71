package io.postlog.decoder;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A strict reader of the JSON documents wal2json writes (RFC 8259): no duplicate keys, no
 * trailing bytes, nesting bounded, strings valid UTF-8 (except the members named
 * {@code content}, a logical message's content, which wal2json copies byte for byte), and
 * numbers kept as the text they were written in, so that a {@code numeric} arrives with
 * every digit. Stateless.
 */
final class Json {

	private static final int MAX_DEPTH = 8;

	private Json() {
	}

	/** A parsed value. */
	sealed interface Value {

	}

	/** A string, unescaped, as UTF-8 bytes (owned by the record). */
	record Text(byte[] bytes) implements Value {

		String string() {
			return new String(this.bytes, StandardCharsets.UTF_8);
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return this == other || (other instanceof Text text && Arrays.equals(this.bytes, text.bytes));
		}

		@Override
		public int hashCode() {
			return Arrays.hashCode(this.bytes);
		}

		@Override
		public String toString() {
			return "Text[" + this.bytes.length + " bytes]";
		}

	}

	/** A number, as the ASCII text it was written in (owned by the record). */
	record Numeral(byte[] text) implements Value {

		@Override
		public boolean equals(@Nullable Object other) {
			return this == other || (other instanceof Numeral numeral && Arrays.equals(this.text, numeral.text));
		}

		@Override
		public int hashCode() {
			return Arrays.hashCode(this.text);
		}

		@Override
		public String toString() {
			return "Numeral[" + this.text.length + " bytes]";
		}

	}

	/**
	 * {@code true} or {@code false}.
	 *
	 * @param value the value
	 */
	record Bool(boolean value) implements Value {

	}

	/** {@code null}. */
	enum Null implements Value {

		INSTANCE

	}

	/**
	 * An array.
	 *
	 * @param items the items (unmodifiable)
	 */
	record Items(List<Value> items) implements Value {

	}

	/**
	 * An object, members in the order written.
	 *
	 * @param members the members (unmodifiable)
	 */
	record Members(Map<String, Value> members) implements Value {

	}

	/**
	 * Parses a whole document.
	 * @param json the document's bytes
	 * @param what what the document is, for errors
	 * @return its value
	 * @throws PluginDecodingException if it is not one strict JSON value
	 */
	static Value parse(byte[] json, String what) {
		Reader reader = new Reader(json, what);
		Value value = reader.value(0, true);
		reader.blanks();
		if (reader.pos != json.length) {
			throw reader.error("trailing bytes after the document");
		}
		return value;
	}

	private static final class Reader {

		private final byte[] b;

		private final String what;

		private int pos;

		Reader(byte[] b, String what) {
			this.b = b;
			this.what = what;
		}

		Value value(int depth, boolean validateText) {
			blanks();
			if (this.pos >= this.b.length) {
				throw error("unexpected end of the document");
			}
			byte c = this.b[this.pos];
			return switch (c) {
				case '{' -> object(depth + 1);
				case '[' -> array(depth + 1);
				case '"' -> new Text(string(validateText));
				case 't' -> literal("true", new Bool(true));
				case 'f' -> literal("false", new Bool(false));
				case 'n' -> literal("null", Null.INSTANCE);
				default -> number();
			};
		}

		private Value object(int depth) {
			requireDepth(depth);
			this.pos++;
			Map<String, Value> members = new LinkedHashMap<>();
			blanks();
			if (skip('}')) {
				return new Members(Collections.unmodifiableMap(members));
			}
			while (true) {
				blanks();
				if (this.pos >= this.b.length || this.b[this.pos] != '"') {
					throw error("expected a member name");
				}
				int at = this.pos;
				String name = new String(string(true), StandardCharsets.UTF_8);
				blanks();
				expect(':');
				Value value = value(depth, !"content".equals(name));
				if (members.put(name, value) != null) {
					throw error(at, "duplicate member");
				}
				blanks();
				if (skip('}')) {
					return new Members(Collections.unmodifiableMap(members));
				}
				expect(',');
			}
		}

		private Value array(int depth) {
			requireDepth(depth);
			this.pos++;
			List<Value> items = new ArrayList<>();
			blanks();
			if (skip(']')) {
				return new Items(Collections.unmodifiableList(items));
			}
			while (true) {
				items.add(value(depth, true));
				blanks();
				if (skip(']')) {
					return new Items(Collections.unmodifiableList(items));
				}
				expect(',');
			}
		}

		private byte[] string(boolean validate) {
			int start = this.pos;
			int plainEnd = plainEnd(start + 1);
			if (plainEnd >= 0) {
				// Most of wal2json's strings (names, types, values of plain columns):
				// copied once, without a buffer or a UTF-8 pass.
				this.pos = plainEnd + 1;
				return Arrays.copyOfRange(this.b, start + 1, plainEnd);
			}
			this.pos++;
			ByteArrayOutputStream out = new ByteArrayOutputStream();
			while (true) {
				if (this.pos >= this.b.length) {
					throw error(start, "unterminated string");
				}
				byte c = this.b[this.pos++];
				if (c == '"') {
					break;
				}
				if ((c & 0xFF) < 0x20) {
					throw error(this.pos - 1, "control character in a string");
				}
				if (c != '\\') {
					out.write(c);
					continue;
				}
				if (this.pos >= this.b.length) {
					throw error(start, "unterminated escape");
				}
				byte escape = this.b[this.pos++];
				switch (escape) {
					case '"', '\\', '/' -> out.write(escape);
					case 'b' -> out.write('\b');
					case 'f' -> out.write('\f');
					case 'n' -> out.write('\n');
					case 'r' -> out.write('\r');
					case 't' -> out.write('\t');
					case 'u' -> unicode(out);
					default -> throw error(this.pos - 1, "invalid escape");
				}
			}
			byte[] bytes = out.toByteArray();
			if (validate) {
				try {
					StandardCharsets.UTF_8.newDecoder()
						.onMalformedInput(CodingErrorAction.REPORT)
						.onUnmappableCharacter(CodingErrorAction.REPORT)
						.decode(ByteBuffer.wrap(bytes));
				}
				catch (CharacterCodingException ex) {
					throw error(start, "string is not valid UTF-8");
				}
			}
			return bytes;
		}

		/**
		 * Returns where a string of printable ASCII without escapes, valid UTF-8 as it
		 * stands, ends (its closing quote), or -1 for any other string, which the full
		 * reader checks and unescapes.
		 */
		private int plainEnd(int from) {
			for (int i = from; i < this.b.length; i++) {
				int c = this.b[i] & 0xFF;
				if (c == '"') {
					return i;
				}
				if (c < 0x20 || c == '\\' || c >= 0x80) {
					return -1;
				}
			}
			return -1;
		}

		private void unicode(ByteArrayOutputStream out) {
			int unit = hex4();
			int codePoint = unit;
			if (Character.isHighSurrogate((char) unit)) {
				if (this.pos + 1 >= this.b.length || this.b[this.pos] != '\\' || this.b[this.pos + 1] != 'u') {
					throw error(this.pos, "unpaired surrogate");
				}
				this.pos += 2;
				int low = hex4();
				if (!Character.isLowSurrogate((char) low)) {
					throw error(this.pos, "unpaired surrogate");
				}
				codePoint = Character.toCodePoint((char) unit, (char) low);
			}
			else if (Character.isLowSurrogate((char) unit)) {
				throw error(this.pos, "unpaired surrogate");
			}
			byte[] utf8 = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8);
			out.write(utf8, 0, utf8.length);
		}

		private int hex4() {
			if (this.pos + 4 > this.b.length) {
				throw error(this.pos, "truncated unicode escape");
			}
			int value = 0;
			for (int i = 0; i < 4; i++) {
				int digit = Character.digit(this.b[this.pos++], 16);
				if (digit < 0) {
					throw error(this.pos - 1, "invalid unicode escape");
				}
				value = (value << 4) | digit;
			}
			return value;
		}

		/** {@code -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?}. */
		private Value number() {
			int start = this.pos;
			skip('-');
			if (skip('0')) {
				if (isDigit()) {
					throw error("leading zero in a number");
				}
			}
			else {
				digits();
			}
			if (skip('.')) {
				digits();
			}
			if (skip('e') || skip('E')) {
				if (!skip('+')) {
					skip('-');
				}
				digits();
			}
			return new Numeral(Arrays.copyOfRange(this.b, start, this.pos));
		}

		private void digits() {
			if (!isDigit()) {
				throw error("expected a digit");
			}
			while (isDigit()) {
				this.pos++;
			}
		}

		private boolean isDigit() {
			return this.pos < this.b.length && this.b[this.pos] >= '0' && this.b[this.pos] <= '9';
		}

		private Value literal(String text, Value value) {
			for (int i = 0; i < text.length(); i++) {
				if (this.pos >= this.b.length || this.b[this.pos] != text.charAt(i)) {
					throw error("invalid literal");
				}
				this.pos++;
			}
			return value;
		}

		void blanks() {
			while (this.pos < this.b.length && (this.b[this.pos] == ' ' || this.b[this.pos] == '\t'
					|| this.b[this.pos] == '\n' || this.b[this.pos] == '\r')) {
				this.pos++;
			}
		}

		private boolean skip(char c) {
			if (this.pos < this.b.length && this.b[this.pos] == c) {
				this.pos++;
				return true;
			}
			return false;
		}

		private void expect(char c) {
			if (!skip(c)) {
				throw error("expected '" + c + "'");
			}
		}

		private void requireDepth(int depth) {
			if (depth > MAX_DEPTH) {
				throw error("nested deeper than " + MAX_DEPTH);
			}
		}

		PluginDecodingException error(String reason) {
			return error(this.pos, reason);
		}

		PluginDecodingException error(int at, String reason) {
			return new PluginDecodingException("wal2json", this.what, at, reason);
		}

	}

}
