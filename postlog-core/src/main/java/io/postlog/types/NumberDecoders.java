package io.postlog.types;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

/**
 * Decoders of {@code bool}, the integer types, {@code oid}, the float types and
 * {@code numeric}.
 */
final class NumberDecoders {

	private static final int NUMERIC_POS = 0x0000;

	private static final int NUMERIC_NEG = 0x4000;

	private static final int NUMERIC_NAN = 0xC000;

	private static final int NUMERIC_PINF = 0xD000;

	private static final int NUMERIC_NINF = 0xF000;

	private static final long[] POWERS_OF_TEN = { 1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L,
			100_000_000L, 1_000_000_000L, 10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L, 10_000_000_000_000L,
			100_000_000_000_000L, 1_000_000_000_000_000L, 10_000_000_000_000_000L, 100_000_000_000_000_000L,
			1_000_000_000_000_000_000L };

	private NumberDecoders() {
	}

	static final class Bool extends InPlaceDecoder {

		Bool() {
			super(PgType.BOOL);
		}

		@Override
		Object text(byte[] utf8) {
			if (utf8.length == 1) {
				if (utf8[0] == 't') {
					return Boolean.TRUE;
				}
				if (utf8[0] == 'f') {
					return Boolean.FALSE;
				}
			}
			throw malformed("expected t or f");
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			requireLength(length, 1);
			return source[offset] != 0;
		}

	}

	static final class Int2 extends InPlaceDecoder {

		Int2() {
			super(PgType.INT2);
		}

		@Override
		Object text(byte[] utf8) {
			long value = Ascii.parseLong(utf8);
			if (value != (short) value) {
				throw malformed("out of range");
			}
			return (short) value;
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			requireLength(length, 2);
			return (short) int16(source, offset);
		}

	}

	static final class Int4 extends InPlaceDecoder {

		Int4() {
			super(PgType.INT4);
		}

		@Override
		Object text(byte[] utf8) {
			long value = Ascii.parseLong(utf8);
			if (value != (int) value) {
				throw malformed("out of range");
			}
			return (int) value;
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			requireLength(length, 4);
			return int32(source, offset);
		}

	}

	static final class Int8 extends InPlaceDecoder {

		Int8() {
			super(PgType.INT8);
		}

		@Override
		Object text(byte[] utf8) {
			return Ascii.parseLong(utf8);
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			requireLength(length, 8);
			return int64(source, offset);
		}

	}

	static final class Oid extends InPlaceDecoder {

		Oid() {
			super(PgType.OID);
		}

		@Override
		Object text(byte[] utf8) {
			long value = Ascii.parseLong(utf8);
			if (value < 0 || value > 0xFFFFFFFFL) {
				throw malformed("out of range");
			}
			return value;
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			requireLength(length, 4);
			return int32(source, offset) & 0xFFFFFFFFL;
		}

	}

	static final class Float4 extends InPlaceDecoder {

		Float4() {
			super(PgType.FLOAT4);
		}

		@Override
		Object text(byte[] utf8) {
			return Float.parseFloat(floatText(utf8));
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			requireLength(length, 4);
			return Float.intBitsToFloat(int32(source, offset));
		}

	}

	static final class Float8 extends InPlaceDecoder {

		Float8() {
			super(PgType.FLOAT8);
		}

		@Override
		Object text(byte[] utf8) {
			return Double.parseDouble(floatText(utf8));
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			requireLength(length, 8);
			return Double.longBitsToDouble(int64(source, offset));
		}

	}

	/**
	 * Checks that a float's text holds only what the server prints (Java's parser would
	 * also take hexadecimal, type suffixes and surrounding blanks).
	 */
	private static String floatText(byte[] utf8) {
		for (byte c : utf8) {
			if (!(Ascii.isDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) {
				if (isSpecialFloat(utf8)) {
					break;
				}
				throw BuiltinDecoder.malformed("invalid character in a float");
			}
		}
		return new String(utf8, StandardCharsets.ISO_8859_1);
	}

	private static boolean isSpecialFloat(byte[] utf8) {
		return Ascii.equals(utf8, "Infinity") || Ascii.equals(utf8, "-Infinity") || Ascii.equals(utf8, "NaN");
	}

	static final class Numeric extends InPlaceDecoder {

		Numeric() {
			super(PgType.NUMERIC);
		}

		@Override
		Object text(byte[] utf8) {
			int length = utf8.length;
			if (length == 0) {
				throw malformed("empty number");
			}
			byte first = utf8[0];
			if (first == 'N' || first == 'I' || (first == '-' && length > 1 && utf8[1] == 'I')) {
				if (Ascii.equals(utf8, "NaN")) {
					return Double.NaN;
				}
				if (Ascii.equals(utf8, "Infinity")) {
					return Double.POSITIVE_INFINITY;
				}
				if (Ascii.equals(utf8, "-Infinity")) {
					return Double.NEGATIVE_INFINITY;
				}
				throw malformed("invalid special value");
			}
			// Fast path for up to 18 digits: the unscaled value fits a long.
			int i = (first == '-' || first == '+') ? 1 : 0;
			long unscaled = 0;
			int digits = 0;
			int scale = 0;
			boolean point = false;
			for (; i < length; i++) {
				byte c = utf8[i];
				if (c >= '0' && c <= '9') {
					if (++digits > 18) {
						return slowText(utf8);
					}
					unscaled = unscaled * 10 + (c - '0');
					if (point) {
						scale++;
					}
				}
				else if (c == '.' && !point) {
					point = true;
				}
				else {
					return slowText(utf8);
				}
			}
			if (digits == 0) {
				throw malformed("no digits");
			}
			return BigDecimal.valueOf((first == '-') ? -unscaled : unscaled, scale);
		}

		private static BigDecimal slowText(byte[] utf8) {
			char[] chars = new char[utf8.length];
			for (int i = 0; i < chars.length; i++) {
				chars[i] = (char) (utf8[i] & 0xFF);
			}
			return new BigDecimal(chars);
		}

		@Override
		Object binary(byte[] value, int offset, int length) {
			if (length < 8) {
				throw malformed("header needs 8 bytes but got " + length);
			}
			int ndigits = int16(value, offset);
			int weight = int16(value, offset + 2);
			int sign = int16(value, offset + 4) & 0xFFFF;
			int dscale = int16(value, offset + 6);
			if (ndigits < 0 || length != 8 + 2 * ndigits) {
				throw malformed("digit count does not match the length");
			}
			switch (sign) {
				case NUMERIC_NAN:
					return Double.NaN;
				case NUMERIC_PINF:
					return Double.POSITIVE_INFINITY;
				case NUMERIC_NINF:
					return Double.NEGATIVE_INFINITY;
				case NUMERIC_POS:
				case NUMERIC_NEG:
					break;
				default:
					throw malformed("invalid sign");
			}
			if (dscale < 0) {
				throw malformed("negative display scale");
			}
			if (ndigits == 0) {
				return BigDecimal.valueOf(0, dscale);
			}
			// The last base-10000 digit's decimal exponent.
			int exponent = 4 * (weight - ndigits + 1);
			BigDecimal result;
			if (ndigits <= 4) {
				long unscaled = 0;
				for (int i = 0; i < ndigits; i++) {
					unscaled = unscaled * 10000 + digit(value, offset, i);
				}
				BigDecimal exact = atScale((sign == NUMERIC_NEG) ? -unscaled : unscaled, -exponent, dscale);
				if (exact != null) {
					return exact;
				}
				result = BigDecimal.valueOf((sign == NUMERIC_NEG) ? -unscaled : unscaled, -exponent);
			}
			else {
				char[] chars = new char[1 + 4 * ndigits];
				chars[0] = (sign == NUMERIC_NEG) ? '-' : '0';
				for (int i = 0; i < ndigits; i++) {
					int digit = digit(value, offset, i);
					int at = 1 + 4 * i;
					chars[at] = (char) ('0' + digit / 1000);
					chars[at + 1] = (char) ('0' + (digit / 100) % 10);
					chars[at + 2] = (char) ('0' + (digit / 10) % 10);
					chars[at + 3] = (char) ('0' + digit % 10);
				}
				result = new BigDecimal(chars).scaleByPowerOfTen(exponent);
			}
			try {
				return result.setScale(dscale, RoundingMode.UNNECESSARY);
			}
			catch (ArithmeticException ex) {
				throw malformed("digits beyond the display scale");
			}
		}

		/**
		 * Returns {@code unscaled × 10^-scale} at the display scale as one BigDecimal, or
		 * {@code null} when that needs more than a long (the caller then rescales).
		 */
		private static @Nullable BigDecimal atScale(long unscaled, int scale, int dscale) {
			if (scale > dscale) {
				int drop = scale - dscale;
				if (drop > 18) {
					return null;
				}
				long divisor = POWERS_OF_TEN[drop];
				if (unscaled % divisor != 0) {
					throw malformed("digits beyond the display scale");
				}
				return BigDecimal.valueOf(unscaled / divisor, dscale);
			}
			int add = dscale - scale;
			if (add > 18 || Math.abs(unscaled) > Long.MAX_VALUE / POWERS_OF_TEN[add]) {
				return null;
			}
			return BigDecimal.valueOf(unscaled * POWERS_OF_TEN[add], dscale);
		}

		private static int digit(byte[] value, int offset, int index) {
			int digit = int16(value, offset + 8 + 2 * index);
			if (digit < 0 || digit > 9999) {
				throw malformed("base-10000 digit out of range");
			}
			return digit;
		}

	}

}
