package io.postlog.types;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;

/**
 * Decoders of the string types, {@code "char"}, {@code jsonb}, {@code bytea} and
 * {@code uuid}, and the raw fallback for types postlog does not know.
 */
final class TextDecoders {

	private static final int JSONB_VERSION = 1;

	private TextDecoders() {
	}

	/** Types whose text output and binary send are both the string's UTF-8 bytes. */
	static final class Text extends BuiltinDecoder {

		Text(int oid) {
			super(oid);
		}

		@Override
		Object text(byte[] utf8) {
			return new String(utf8, StandardCharsets.UTF_8);
		}

		@Override
		Object binary(byte[] value) {
			return new String(value, StandardCharsets.UTF_8);
		}

		@Override
		Object text(byte[] source, int offset, int length) {
			return new String(source, offset, length, StandardCharsets.UTF_8);
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			return new String(source, offset, length, StandardCharsets.UTF_8);
		}

	}

	/** {@code "char"}: one byte; the server prints high bytes as {@code \ooo} (15+). */
	static final class Char extends BuiltinDecoder {

		Char() {
			super(PgType.CHAR);
		}

		@Override
		Object text(byte[] utf8) {
			return new String(utf8, StandardCharsets.UTF_8);
		}

		@Override
		Object binary(byte[] value) {
			if (value.length > 1) {
				throw malformed("expected at most 1 byte but got " + value.length);
			}
			if (value.length == 0 || value[0] == 0) {
				return "";
			}
			int c = value[0] & 0xFF;
			if (c < 0x80) {
				return String.valueOf((char) c);
			}
			return "\\" + (char) ('0' + (c >> 6)) + (char) ('0' + ((c >> 3) & 7)) + (char) ('0' + (c & 7));
		}

	}

	static final class Jsonb extends InPlaceDecoder {

		Jsonb() {
			super(PgType.JSONB);
		}

		@Override
		Object text(byte[] utf8) {
			return new String(utf8, StandardCharsets.UTF_8);
		}

		@Override
		Object text(byte[] source, int offset, int length) {
			return new String(source, offset, length, StandardCharsets.UTF_8);
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			if (length == 0 || source[offset] != JSONB_VERSION) {
				throw malformed("unsupported jsonb version");
			}
			return new String(source, offset + 1, length - 1, StandardCharsets.UTF_8);
		}

	}

	/**
	 * {@code bytea}: text is hex ({@code \x...}) or the legacy escape format, decoded in
	 * place (a large value's text is not copied first).
	 */
	static final class Bytea extends BuiltinDecoder {

		Bytea() {
			super(PgType.BYTEA);
		}

		@Override
		Object text(byte[] utf8) {
			return text(utf8, 0, utf8.length);
		}

		@Override
		Object text(byte[] source, int offset, int length) {
			if (length >= 2 && source[offset] == '\\' && source[offset + 1] == 'x') {
				return hex(source, offset + 2, length - 2);
			}
			return escaped(source, offset, length);
		}

		private static byte[] hex(byte[] source, int offset, int digits) {
			if ((digits & 1) != 0) {
				throw malformed("odd number of hexadecimal digits");
			}
			byte[] bytes = new byte[digits / 2];
			for (int i = 0, at = offset; i < bytes.length; i++, at += 2) {
				bytes[i] = (byte) ((Ascii.hexDigit(source[at]) << 4) | Ascii.hexDigit(source[at + 1]));
			}
			return bytes;
		}

		private static byte[] escaped(byte[] source, int offset, int length) {
			byte[] bytes = new byte[length];
			int count = 0;
			int end = offset + length;
			for (int i = offset; i < end; i++) {
				byte c = source[i];
				if (c != '\\') {
					bytes[count++] = c;
				}
				else if (i + 1 < end && source[i + 1] == '\\') {
					bytes[count++] = '\\';
					i++;
				}
				else if (i + 3 < end && isOctal(source[i + 1], '3') && isOctal(source[i + 2], '7')
						&& isOctal(source[i + 3], '7')) {
					bytes[count++] = (byte) (((source[i + 1] - '0') << 6) | ((source[i + 2] - '0') << 3)
							| (source[i + 3] - '0'));
					i += 3;
				}
				else {
					throw malformed("invalid escape at offset " + (i - offset));
				}
			}
			return (count == length) ? bytes : Arrays.copyOf(bytes, count);
		}

		private static boolean isOctal(byte c, char max) {
			return c >= '0' && c <= max;
		}

		@Override
		Object binary(byte[] value) {
			return value.clone();
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			return Arrays.copyOfRange(source, offset, offset + length);
		}

	}

	static final class Uuid extends InPlaceDecoder {

		Uuid() {
			super(PgType.UUID);
		}

		@Override
		Object text(byte[] utf8) {
			requireLength(utf8, 36);
			if (utf8[8] != '-' || utf8[13] != '-' || utf8[18] != '-' || utf8[23] != '-') {
				throw malformed("expected the 8-4-4-4-12 form");
			}
			long msb = hex(utf8, 0, 8);
			msb = (msb << 16) | hex(utf8, 9, 13);
			msb = (msb << 16) | hex(utf8, 14, 18);
			long lsb = hex(utf8, 19, 23);
			lsb = (lsb << 48) | hex(utf8, 24, 36);
			return new UUID(msb, lsb);
		}

		private static long hex(byte[] utf8, int from, int to) {
			long value = 0;
			for (int i = from; i < to; i++) {
				value = (value << 4) | Ascii.hexDigit(utf8[i]);
			}
			return value;
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			requireLength(length, 16);
			return new UUID(int64(source, offset), int64(source, offset + 8));
		}

	}

	/** Anything postlog does not know: the text as a String, the binary bytes as sent. */
	static final class Raw extends BuiltinDecoder {

		static final Raw INSTANCE = new Raw();

		private Raw() {
			super(0);
		}

		@Override
		Object text(byte[] utf8) {
			return new String(utf8, StandardCharsets.UTF_8);
		}

		@Override
		Object text(byte[] source, int offset, int length) {
			return new String(source, offset, length, StandardCharsets.UTF_8);
		}

		@Override
		Object binary(byte[] value) {
			return value.clone();
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			return Arrays.copyOfRange(source, offset, offset + length);
		}

	}

}
