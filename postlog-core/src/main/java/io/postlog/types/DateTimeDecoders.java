package io.postlog.types;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;

/**
 * Decoders of {@code date}, {@code time}, {@code timetz}, {@code timestamp},
 * {@code timestamptz} and {@code interval}. Text is the ISO {@code DateStyle} (pgjdbc
 * sets it on every connection and refuses to run under any other) and any
 * {@code IntervalStyle} ({@link IntervalText}); binary is the integer-datetimes send
 * format (microseconds since 2000-01-01).
 */
final class DateTimeDecoders {

	/** Days from 1970-01-01 to PostgreSQL's epoch, 2000-01-01. */
	private static final long PG_EPOCH_DAY = 10_957;

	private static final long PG_EPOCH_SECOND = PG_EPOCH_DAY * 86_400;

	private static final long MICROS_PER_SECOND = 1_000_000;

	private static final long MICROS_PER_DAY = 86_400 * MICROS_PER_SECOND;

	private DateTimeDecoders() {
	}

	static final class Date extends InPlaceDecoder {

		Date() {
			super(PgType.DATE);
		}

		@Override
		Object text(byte[] utf8) {
			if (Ascii.equals(utf8, "infinity")) {
				return LocalDate.MAX;
			}
			if (Ascii.equals(utf8, "-infinity")) {
				return LocalDate.MIN;
			}
			Ascii in = withoutBc(utf8);
			LocalDate date = date(in, in.end != utf8.length);
			in.expectEnd();
			return date;
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			requireLength(length, 4);
			int days = int32(source, offset);
			if (days == Integer.MAX_VALUE) {
				return LocalDate.MAX;
			}
			if (days == Integer.MIN_VALUE) {
				return LocalDate.MIN;
			}
			return LocalDate.ofEpochDay(PG_EPOCH_DAY + days);
		}

	}

	static final class Time extends InPlaceDecoder {

		Time() {
			super(PgType.TIME);
		}

		@Override
		Object text(byte[] utf8) {
			Ascii in = new Ascii(utf8);
			LocalTime time = time(in);
			in.expectEnd();
			return time;
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			requireLength(length, 8);
			return timeOfMicros(int64(source, offset));
		}

	}

	static final class TimeTz extends BuiltinDecoder {

		TimeTz() {
			super(PgType.TIMETZ);
		}

		@Override
		Object text(byte[] utf8) {
			Ascii in = new Ascii(utf8);
			LocalTime time = time(in);
			int offset = in.offsetSeconds();
			in.expectEnd();
			return OffsetTime.of(time, ZoneOffset.ofTotalSeconds(offset));
		}

		@Override
		Object binary(byte[] value) {
			requireLength(value, 12);
			LocalTime time = timeOfMicros(int64(value, 0));
			// The server keeps the zone as seconds west of Greenwich.
			return OffsetTime.of(time, ZoneOffset.ofTotalSeconds(-int32(value, 8)));
		}

	}

	static final class Timestamp extends InPlaceDecoder {

		Timestamp() {
			super(PgType.TIMESTAMP);
		}

		@Override
		Object text(byte[] utf8) {
			if (Ascii.equals(utf8, "infinity")) {
				return LocalDateTime.MAX;
			}
			if (Ascii.equals(utf8, "-infinity")) {
				return LocalDateTime.MIN;
			}
			Ascii in = withoutBc(utf8);
			LocalDate date = date(in, in.end != utf8.length);
			in.expect(' ');
			LocalTime time = time(in);
			in.expectEnd();
			return LocalDateTime.of(date, time);
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			requireLength(length, 8);
			long micros = int64(source, offset);
			if (micros == Long.MAX_VALUE) {
				return LocalDateTime.MAX;
			}
			if (micros == Long.MIN_VALUE) {
				return LocalDateTime.MIN;
			}
			return utcDateTime(micros);
		}

	}

	static final class TimestampTz extends InPlaceDecoder {

		TimestampTz() {
			super(PgType.TIMESTAMPTZ);
		}

		@Override
		Object text(byte[] utf8) {
			if (Ascii.equals(utf8, "infinity")) {
				return OffsetDateTime.MAX;
			}
			if (Ascii.equals(utf8, "-infinity")) {
				return OffsetDateTime.MIN;
			}
			Ascii in = withoutBc(utf8);
			LocalDate date = date(in, in.end != utf8.length);
			in.expect(' ');
			LocalTime time = time(in);
			int offset = in.offsetSeconds();
			in.expectEnd();
			long epochSecond = date.toEpochDay() * 86_400 + time.toSecondOfDay() - offset;
			return OffsetDateTime.of(LocalDateTime.ofEpochSecond(epochSecond, time.getNano(), ZoneOffset.UTC),
					ZoneOffset.UTC);
		}

		@Override
		Object binary(byte[] source, int offset, int length) {
			requireLength(length, 8);
			long micros = int64(source, offset);
			if (micros == Long.MAX_VALUE) {
				return OffsetDateTime.MAX;
			}
			if (micros == Long.MIN_VALUE) {
				return OffsetDateTime.MIN;
			}
			return OffsetDateTime.of(utcDateTime(micros), ZoneOffset.UTC);
		}

	}

	static final class IntervalDecoder extends BuiltinDecoder {

		private static final Interval INFINITY = new Interval(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE);

		private static final Interval MINUS_INFINITY = new Interval(Integer.MIN_VALUE, Integer.MIN_VALUE,
				Long.MIN_VALUE);

		IntervalDecoder() {
			super(PgType.INTERVAL);
		}

		/**
		 * Any {@code IntervalStyle} the server may print in; see {@link IntervalText}.
		 */
		@Override
		Object text(byte[] utf8) {
			if (Ascii.equals(utf8, "infinity")) {
				return INFINITY;
			}
			if (Ascii.equals(utf8, "-infinity")) {
				return MINUS_INFINITY;
			}
			return IntervalText.parse(utf8);
		}

		@Override
		Object binary(byte[] value) {
			requireLength(value, 16);
			return new Interval(int32(value, 12), int32(value, 8), int64(value, 0));
		}

	}

	/**
	 * Returns a cursor over the text without its {@code " BC"} suffix, which comes last
	 * but decides the year before the date can be checked (1 BC, year 0, is a leap year).
	 */
	static Ascii withoutBc(byte[] utf8) {
		int length = utf8.length;
		boolean bc = length > 3 && utf8[length - 3] == ' ' && utf8[length - 2] == 'B' && utf8[length - 1] == 'C';
		return new Ascii(utf8, 0, bc ? length - 3 : length);
	}

	/**
	 * Reads {@code Y+-MM-DD}; a BC year {@code y} is the proleptic year {@code 1 - y}.
	 */
	static LocalDate date(Ascii in, boolean bc) {
		int year = (int) in.digits(4, 9);
		in.expect('-');
		int month = in.int2Digits();
		in.expect('-');
		int day = in.int2Digits();
		return LocalDate.of(bc ? 1 - year : year, month, day);
	}

	/**
	 * Reads {@code HH:MM:SS[.f]}; the server's {@code 24:00:00} is {@link LocalTime#MAX}.
	 */
	static LocalTime time(Ascii in) {
		int hour = in.int2Digits();
		in.expect(':');
		int minute = in.int2Digits();
		in.expect(':');
		int second = in.int2Digits();
		int nanos = in.fractionNanos();
		if (hour == 24 && minute == 0 && second == 0 && nanos == 0) {
			return LocalTime.MAX;
		}
		return LocalTime.of(hour, minute, second, nanos);
	}

	static LocalTime timeOfMicros(long micros) {
		if (micros == MICROS_PER_DAY) {
			return LocalTime.MAX;
		}
		if (micros < 0 || micros > MICROS_PER_DAY) {
			throw BuiltinDecoder.malformed("time of day out of range");
		}
		return LocalTime.ofNanoOfDay(micros * 1000);
	}

	static LocalDateTime utcDateTime(long micros) {
		long seconds = Math.floorDiv(micros, MICROS_PER_SECOND);
		int nanos = (int) Math.floorMod(micros, MICROS_PER_SECOND) * 1000;
		return LocalDateTime.ofEpochSecond(PG_EPOCH_SECOND + seconds, nanos, ZoneOffset.UTC);
	}

}
