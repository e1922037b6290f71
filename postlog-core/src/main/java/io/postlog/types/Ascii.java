package io.postlog.types;

import io.postlog.types.BuiltinDecoder.MalformedValueException;

/**
 * A cursor over the ASCII text of a value, with the few readers the date, time, number
 * and interval parsers need. Not thread-safe; one per decode call.
 */
final class Ascii {

	final byte[] b;

	int pos;

	final int end;

	Ascii(byte[] b) {
		this(b, 0, b.length);
	}

	Ascii(byte[] b, int from, int to) {
		this.b = b;
		this.pos = from;
		this.end = to;
	}

	boolean atEnd() {
		return this.pos >= this.end;
	}

	boolean peek(char c) {
		return this.pos < this.end && this.b[this.pos] == c;
	}

	boolean skip(char c) {
		if (peek(c)) {
			this.pos++;
			return true;
		}
		return false;
	}

	void expect(char c) {
		if (!skip(c)) {
			throw malformed("expected '" + c + "' at offset " + this.pos);
		}
	}

	void expectEnd() {
		if (this.pos != this.end) {
			throw malformed("unexpected character at offset " + this.pos);
		}
	}

	boolean isDigit() {
		return this.pos < this.end && isDigit(this.b[this.pos]);
	}

	/** Reads between {@code min} and {@code max} (at most 18) decimal digits. */
	long digits(int min, int max) {
		int start = this.pos;
		long value = 0;
		while (this.pos < this.end && this.pos - start < max && isDigit(this.b[this.pos])) {
			value = value * 10 + (this.b[this.pos++] - '0');
		}
		int count = this.pos - start;
		if (count < min) {
			throw malformed("expected " + ((min == max) ? "" : "at least ") + min + " digits at offset " + start);
		}
		if (count == max && isDigit()) {
			throw malformed("too many digits at offset " + start);
		}
		return value;
	}

	int int2Digits() {
		return (int) digits(2, 2);
	}

	/** Reads an optional fraction ({@code .} and 1 to 9 digits) as nanoseconds. */
	int fractionNanos() {
		if (!skip('.')) {
			return 0;
		}
		int start = this.pos;
		long value = digits(1, 9);
		for (int i = this.pos - start; i < 9; i++) {
			value *= 10;
		}
		return (int) value;
	}

	/** Reads a UTC offset {@code ±hh[:mm[:ss]]} in seconds east of Greenwich. */
	int offsetSeconds() {
		int sign;
		if (skip('+')) {
			sign = 1;
		}
		else if (skip('-')) {
			sign = -1;
		}
		else {
			throw malformed("expected a UTC offset at offset " + this.pos);
		}
		int seconds = int2Digits() * 3600;
		if (skip(':')) {
			seconds += int2Digits() * 60;
			if (skip(':')) {
				seconds += int2Digits();
			}
		}
		return sign * seconds;
	}

	/** Returns whether the rest equals {@code text} exactly, consuming it if so. */
	boolean rest(String text) {
		int length = text.length();
		if (this.end - this.pos != length) {
			return false;
		}
		for (int i = 0; i < length; i++) {
			if (this.b[this.pos + i] != text.charAt(i)) {
				return false;
			}
		}
		this.pos = this.end;
		return true;
	}

	static boolean equals(byte[] b, String text) {
		return new Ascii(b).rest(text);
	}

	static boolean isDigit(byte c) {
		return c >= '0' && c <= '9';
	}

	static int hexDigit(byte c) {
		if (c >= '0' && c <= '9') {
			return c - '0';
		}
		if (c >= 'a' && c <= 'f') {
			return c - 'a' + 10;
		}
		if (c >= 'A' && c <= 'F') {
			return c - 'A' + 10;
		}
		throw malformed("invalid hexadecimal digit");
	}

	/** Parses a whole decimal {@code long}, with an optional sign, without a String. */
	static long parseLong(byte[] b) {
		int length = b.length;
		if (length == 0) {
			throw malformed("empty number");
		}
		int i = 0;
		boolean negative = false;
		if (b[0] == '-' || b[0] == '+') {
			negative = b[0] == '-';
			i = 1;
			if (length == 1) {
				throw malformed("no digits");
			}
		}
		// Accumulate negatively so that Long.MIN_VALUE parses without overflow.
		long value = 0;
		for (; i < length; i++) {
			byte c = b[i];
			if (c < '0' || c > '9') {
				throw malformed("invalid character at offset " + i);
			}
			if (value < -922337203685477580L || (value == -922337203685477580L && c > (negative ? '8' : '7'))) {
				throw malformed("out of range");
			}
			value = value * 10 - (c - '0');
		}
		return negative ? value : -value;
	}

	private static MalformedValueException malformed(String reason) {
		return BuiltinDecoder.malformed(reason);
	}

}
