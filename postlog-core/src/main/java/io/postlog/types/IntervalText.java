package io.postlog.types;

/**
 * Reads an {@code interval} in any of the four {@code IntervalStyle} outputs the server
 * can produce, so that a server default other than {@code postgres} cannot change what a
 * value decodes to:
 * <ul>
 * <li>{@code postgres}: {@code 1 year 2 mons -3 days +04:05:06.789}</li>
 * <li>{@code postgres_verbose}: {@code @ 1 year 2 mons -3 days 4 hours 5 mins 6 secs ago}
 * ({@code ago} negates every field)</li>
 * <li>{@code sql_standard}: {@code 1-2}, {@code -3 4:05:06}, {@code 4:05:06.789}, or with
 * mixed signs {@code +1-2 -3 +4:05:06}; zero is {@code 0}</li>
 * <li>{@code iso_8601}: {@code P1Y2M-3DT4H5M6.789S}; zero is {@code PT0S}</li>
 * </ul>
 * The style is told by the text itself: {@code @} starts the verbose style, {@code P} the
 * ISO one, a unit word marks the {@code postgres} style, and digits with {@code -} and
 * {@code :} alone the SQL standard one (whose time-only form means the same as the
 * {@code postgres} one's). Stateless.
 */
final class IntervalText {

	private static final long MICROS_PER_SECOND = 1_000_000;

	private static final long MICROS_PER_MINUTE = 60 * MICROS_PER_SECOND;

	private static final long MICROS_PER_HOUR = 60 * MICROS_PER_MINUTE;

	private IntervalText() {
	}

	static Interval parse(byte[] utf8) {
		if (utf8.length == 0) {
			throw BuiltinDecoder.malformed("empty interval");
		}
		Fields fields = new Fields();
		Ascii in = new Ascii(utf8);
		if (utf8[0] == '@') {
			verbose(in, fields);
		}
		else if (utf8[0] == 'P') {
			iso(in, fields);
		}
		else if (hasLetter(utf8)) {
			postgres(in, fields);
		}
		else {
			sqlStandard(in, fields);
		}
		return fields.interval();
	}

	/** {@code [N year[s]] [N mon[s]] [N day[s]] [[+|-]H:MM:SS[.f]]}. */
	private static void postgres(Ascii in, Fields fields) {
		boolean any = false;
		while (!in.atEnd()) {
			if (any) {
				in.expect(' ');
			}
			any = true;
			boolean negative = sign(in, true);
			long number = in.digits(1, 18);
			if (in.skip(':')) {
				fields.addMicros(time(in, number, negative));
				continue;
			}
			in.expect(' ');
			if (word(in, "year")) {
				fields.addMonths(signed(negative, Math.multiplyExact(number, 12)));
			}
			else if (word(in, "mon")) {
				fields.addMonths(signed(negative, number));
			}
			else if (word(in, "day")) {
				fields.addDays(signed(negative, number));
			}
			else {
				throw BuiltinDecoder.malformed("unknown interval unit at offset " + in.pos);
			}
			in.skip('s');
		}
	}

	/**
	 * {@code @ [-]N unit[s] ... [ago]}, or {@code @ 0}; {@code ago} negates every field,
	 * so it is found first and folded into each field's sign.
	 */
	private static void verbose(Ascii outer, Fields fields) {
		boolean ago = endsWith(outer, " ago");
		Ascii in = new Ascii(outer.b, 0, ago ? outer.end - 4 : outer.end);
		in.expect('@');
		boolean any = false;
		while (!in.atEnd()) {
			in.expect(' ');
			boolean minus = sign(in, false);
			boolean negative = minus != ago;
			long number = in.digits(1, 18);
			if (!any && !ago && number == 0 && in.atEnd()) {
				return;
			}
			any = true;
			boolean fraction = in.peek('.');
			long micros = fraction ? in.fractionNanos() / 1000 : 0;
			in.expect(' ');
			if (!fraction && word(in, "year")) {
				fields.addMonths(signed(negative, Math.multiplyExact(number, 12)));
			}
			else if (!fraction && word(in, "mon")) {
				fields.addMonths(signed(negative, number));
			}
			else if (!fraction && word(in, "day")) {
				// Before 15 the server negates an int for "ago", so the smallest day
				// count
				// prints as "-2147483648 days ago".
				boolean wrapped = ago && minus && number == -(long) Integer.MIN_VALUE;
				fields.addDays(wrapped ? Integer.MIN_VALUE : signed(negative, number));
			}
			else if (!fraction && word(in, "hour")) {
				fields.addMicros(signed(negative, Math.multiplyExact(number, MICROS_PER_HOUR)));
			}
			else if (!fraction && word(in, "min")) {
				fields.addMicros(signed(negative, Math.multiplyExact(number, MICROS_PER_MINUTE)));
			}
			else if (word(in, "sec")) {
				fields.addMicros(seconds(number, micros, negative));
			}
			else {
				throw BuiltinDecoder.malformed("unknown interval unit at offset " + in.pos);
			}
			in.skip('s');
		}
		if (!any) {
			throw BuiltinDecoder.malformed("empty interval");
		}
	}

	/**
	 * {@code 0}; {@code [-]Y-M}; {@code [-]D H:MM:SS[.f]}; {@code [-]H:MM:SS[.f]}; or,
	 * with mixed signs, {@code ±Y-M ±D ±H:MM:SS[.f]}.
	 */
	private static void sqlStandard(Ascii in, Fields fields) {
		boolean explicitSign = in.peek('+') || in.peek('-');
		boolean negative = sign(in, true);
		// Before 15 the server negates an int after the sign, so the smallest day count
		// prints as "--2147483648 0:00:00".
		boolean wrapped = negative && in.skip('-');
		long first = in.digits(1, 18);
		if (wrapped) {
			if (first != -(long) Integer.MIN_VALUE || !in.peek(' ')) {
				throw BuiltinDecoder.malformed("unexpected second sign");
			}
			in.expect(' ');
			fields.addDays(Integer.MIN_VALUE);
			long hours = in.digits(1, 18);
			in.expect(':');
			fields.addMicros(time(in, hours, true));
			in.expectEnd();
			return;
		}
		if (in.skip('-')) {
			long months = Math.addExact(Math.multiplyExact(first, 12), in.digits(1, 18));
			fields.addMonths(signed(negative, months));
			if (in.atEnd()) {
				return;
			}
			if (!explicitSign) {
				throw BuiltinDecoder.malformed("expected a sign before the year-month field");
			}
			in.expect(' ');
			boolean negativeDays = explicitSign(in);
			fields.addDays(signed(negativeDays, in.digits(1, 18)));
			in.expect(' ');
			boolean negativeTime = explicitSign(in);
			long hours = in.digits(1, 18);
			in.expect(':');
			fields.addMicros(time(in, hours, negativeTime));
			in.expectEnd();
			return;
		}
		if (in.skip(' ')) {
			fields.addDays(signed(negative, first));
			long hours = in.digits(1, 18);
			in.expect(':');
			fields.addMicros(time(in, hours, negative));
		}
		else if (in.skip(':')) {
			fields.addMicros(time(in, first, negative));
		}
		else if (first != 0 || explicitSign) {
			throw BuiltinDecoder.malformed("unexpected character at offset " + in.pos);
		}
		in.expectEnd();
	}

	/** {@code P[nY][nM][nD][T[nH][nM][n[.f]S]]}, each number with its own sign. */
	private static void iso(Ascii in, Fields fields) {
		in.expect('P');
		boolean timePart = false;
		boolean any = false;
		while (!in.atEnd()) {
			if (!timePart && in.skip('T')) {
				timePart = true;
				continue;
			}
			boolean negative = sign(in, false);
			long number = in.digits(1, 18);
			boolean fraction = in.peek('.');
			long micros = fraction ? in.fractionNanos() / 1000 : 0;
			any = true;
			if (timePart && in.skip('S')) {
				fields.addMicros(seconds(number, micros, negative));
				continue;
			}
			if (fraction) {
				throw BuiltinDecoder.malformed("fraction outside the seconds at offset " + in.pos);
			}
			if (!timePart && in.skip('Y')) {
				fields.addMonths(signed(negative, Math.multiplyExact(number, 12)));
			}
			else if (!timePart && in.skip('M')) {
				fields.addMonths(signed(negative, number));
			}
			else if (!timePart && in.skip('D')) {
				fields.addDays(signed(negative, number));
			}
			else if (timePart && in.skip('H')) {
				fields.addMicros(signed(negative, Math.multiplyExact(number, MICROS_PER_HOUR)));
			}
			else if (timePart && in.skip('M')) {
				fields.addMicros(signed(negative, Math.multiplyExact(number, MICROS_PER_MINUTE)));
			}
			else {
				throw BuiltinDecoder.malformed("unknown ISO 8601 designator at offset " + in.pos);
			}
		}
		if (!any) {
			throw BuiltinDecoder.malformed("empty interval");
		}
	}

	/**
	 * Reads {@code MM:SS[.f]} after the hours and their colon: the signed time in
	 * microseconds. A negative time is summed downwards, so that the smallest interval,
	 * whose magnitude exceeds {@code Long.MAX_VALUE}, does not overflow.
	 */
	private static long time(Ascii in, long hours, boolean negative) {
		long minutes = in.int2Digits();
		in.expect(':');
		long seconds = in.int2Digits();
		long fraction = in.fractionNanos() / 1000;
		if (minutes > 59 || seconds > 59) {
			throw BuiltinDecoder.malformed("minutes or seconds out of range");
		}
		long rest = minutes * MICROS_PER_MINUTE + seconds * MICROS_PER_SECOND + fraction;
		long whole = Math.multiplyExact(hours, MICROS_PER_HOUR);
		return negative ? Math.subtractExact(-whole, rest) : Math.addExact(whole, rest);
	}

	private static long seconds(long seconds, long fractionMicros, boolean negative) {
		long whole = Math.multiplyExact(seconds, MICROS_PER_SECOND);
		return negative ? Math.subtractExact(-whole, fractionMicros) : Math.addExact(whole, fractionMicros);
	}

	private static long signed(boolean negative, long value) {
		return negative ? -value : value;
	}

	private static boolean endsWith(Ascii in, String suffix) {
		int length = suffix.length();
		if (in.end - length < 0) {
			return false;
		}
		for (int i = 0; i < length; i++) {
			if (in.b[in.end - length + i] != suffix.charAt(i)) {
				return false;
			}
		}
		return true;
	}

	private static boolean sign(Ascii in, boolean plusAllowed) {
		if (in.skip('-')) {
			return true;
		}
		if (plusAllowed) {
			in.skip('+');
		}
		return false;
	}

	private static boolean explicitSign(Ascii in) {
		if (in.skip('-')) {
			return true;
		}
		in.expect('+');
		return false;
	}

	private static boolean word(Ascii in, String word) {
		int length = word.length();
		if (in.end - in.pos < length) {
			return false;
		}
		for (int i = 0; i < length; i++) {
			if (in.b[in.pos + i] != word.charAt(i)) {
				return false;
			}
		}
		in.pos += length;
		return true;
	}

	private static boolean hasLetter(byte[] utf8) {
		for (byte c : utf8) {
			if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
				return true;
			}
		}
		return false;
	}

	/** The three parts of an interval, summed with overflow checks. */
	private static final class Fields {

		long months;

		long days;

		long micros;

		void addMonths(long value) {
			this.months = Math.addExact(this.months, value);
		}

		void addDays(long value) {
			this.days = Math.addExact(this.days, value);
		}

		void addMicros(long value) {
			this.micros = Math.addExact(this.micros, value);
		}

		Interval interval() {
			return new Interval(Math.toIntExact(this.months), Math.toIntExact(this.days), this.micros);
		}

	}

}
