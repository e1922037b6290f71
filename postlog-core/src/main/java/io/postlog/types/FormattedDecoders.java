package io.postlog.types;

import java.nio.charset.StandardCharsets;

/**
 * Decoders of types postlog hands over as the server's text: {@code inet}, {@code cidr},
 * {@code macaddr}, {@code macaddr8}, {@code money}, {@code bit} and {@code varbit}. The
 * binary forms are printed exactly as the server's output functions print them, so both
 * formats give equal strings.
 */
final class FormattedDecoders {

	private static final byte PGSQL_AF_INET = 2;

	private static final byte PGSQL_AF_INET6 = 3;

	private static final char[] HEX = "0123456789abcdef".toCharArray();

	private FormattedDecoders() {
	}

	abstract static class Formatted extends BuiltinDecoder {

		Formatted(int oid) {
			super(oid);
		}

		@Override
		final Object text(byte[] utf8) {
			return new String(utf8, StandardCharsets.UTF_8);
		}

	}

	/** {@code inet} and {@code cidr}, printed like {@code network_out}. */
	static final class Inet extends Formatted {

		private final boolean cidr;

		Inet(boolean cidr) {
			super(cidr ? PgType.CIDR : PgType.INET);
			this.cidr = cidr;
		}

		@Override
		Object binary(byte[] value) {
			if (value.length < 4) {
				throw malformed("header needs 4 bytes but got " + value.length);
			}
			byte family = value[0];
			int bits = value[1] & 0xFF;
			int size = value[3] & 0xFF;
			int expectedSize = (family == PGSQL_AF_INET) ? 4 : (family == PGSQL_AF_INET6) ? 16 : -1;
			if (expectedSize < 0) {
				throw malformed("unknown address family");
			}
			if (size != expectedSize || value.length != 4 + size || bits > 8 * size) {
				throw malformed("address length does not match the family");
			}
			StringBuilder text = new StringBuilder(48);
			if (family == PGSQL_AF_INET) {
				ipv4(value, 4, text);
			}
			else {
				ipv6(value, text);
			}
			if (this.cidr || bits != 8 * size) {
				text.append('/').append(bits);
			}
			return text.toString();
		}

		private static void ipv4(byte[] value, int from, StringBuilder text) {
			for (int i = 0; i < 4; i++) {
				if (i > 0) {
					text.append('.');
				}
				text.append(value[from + i] & 0xFF);
			}
		}

		/**
		 * Follows {@code inet_net_ntop_ipv6}: the longest zero run (2+ words) is "::".
		 */
		private static void ipv6(byte[] value, StringBuilder text) {
			int[] words = new int[8];
			for (int i = 0; i < 8; i++) {
				words[i] = ((value[4 + 2 * i] & 0xFF) << 8) | (value[5 + 2 * i] & 0xFF);
			}
			int bestBase = -1;
			int bestLength = 0;
			int currentBase = -1;
			int currentLength = 0;
			for (int i = 0; i < 8; i++) {
				if (words[i] == 0) {
					if (currentBase == -1) {
						currentBase = i;
						currentLength = 1;
					}
					else {
						currentLength++;
					}
				}
				else if (currentBase != -1) {
					if (bestBase == -1 || currentLength > bestLength) {
						bestBase = currentBase;
						bestLength = currentLength;
					}
					currentBase = -1;
				}
			}
			if (currentBase != -1 && (bestBase == -1 || currentLength > bestLength)) {
				bestBase = currentBase;
				bestLength = currentLength;
			}
			if (bestBase != -1 && bestLength < 2) {
				bestBase = -1;
			}
			for (int i = 0; i < 8; i++) {
				if (bestBase != -1 && i >= bestBase && i < bestBase + bestLength) {
					if (i == bestBase) {
						text.append(':');
					}
					continue;
				}
				if (i != 0) {
					text.append(':');
				}
				if (i == 6 && bestBase == 0 && (bestLength == 6 || (bestLength == 7 && words[7] != 0x0001)
						|| (bestLength == 5 && words[5] == 0xffff))) {
					ipv4(value, 16, text);
					break;
				}
				text.append(Integer.toHexString(words[i]));
			}
			if (bestBase != -1 && bestBase + bestLength == 8) {
				text.append(':');
			}
		}

	}

	/** {@code macaddr} (6 bytes) and {@code macaddr8} (8 bytes): lowercase hex pairs. */
	static final class MacAddr extends Formatted {

		private final int size;

		MacAddr(int oid, int size) {
			super(oid);
			this.size = size;
		}

		@Override
		Object binary(byte[] value) {
			requireLength(value, this.size);
			char[] text = new char[3 * this.size - 1];
			for (int i = 0; i < this.size; i++) {
				if (i > 0) {
					text[3 * i - 1] = ':';
				}
				text[3 * i] = HEX[(value[i] >> 4) & 0xF];
				text[3 * i + 1] = HEX[value[i] & 0xF];
			}
			return new String(text);
		}

	}

	/**
	 * {@code money}: the binary form is an int8 of cents, printed as {@code cash_out}
	 * prints it under {@code lc_monetary=C} ({@code -$1,234.56}).
	 */
	static final class Money extends Formatted {

		Money() {
			super(PgType.MONEY);
		}

		@Override
		Object binary(byte[] value) {
			requireLength(value, 8);
			long cents = int64(value, 0);
			// Unsigned arithmetic on the magnitude, so that Long.MIN_VALUE prints too.
			long magnitude = (cents < 0) ? -cents : cents;
			char[] digits = new char[32];
			int at = digits.length;
			int position = 2;
			do {
				if (position == 0) {
					digits[--at] = '.';
				}
				else if (position < 0 && position % 3 == 0) {
					digits[--at] = ',';
				}
				digits[--at] = (char) ('0' + Long.remainderUnsigned(magnitude, 10));
				magnitude = Long.divideUnsigned(magnitude, 10);
				position--;
			}
			while (magnitude != 0 || position >= 0);
			digits[--at] = '$';
			if (cents < 0) {
				digits[--at] = '-';
			}
			return new String(digits, at, digits.length - at);
		}

	}

	/**
	 * {@code bit} and {@code varbit}: an int4 bit count, then the bits, high bit first.
	 */
	static final class Bits extends Formatted {

		Bits(int oid) {
			super(oid);
		}

		@Override
		Object binary(byte[] value) {
			if (value.length < 4) {
				throw malformed("header needs 4 bytes but got " + value.length);
			}
			int bits = int32(value, 0);
			if (bits < 0 || value.length != 4 + (int) ((bits + 7L) / 8)) {
				throw malformed("bit count does not match the length");
			}
			char[] text = new char[bits];
			for (int i = 0; i < bits; i++) {
				text[i] = ((value[4 + (i >> 3)] & (0x80 >> (i & 7))) != 0) ? '1' : '0';
			}
			return new String(text);
		}

	}

}
