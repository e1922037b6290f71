package io.postlog.json;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Collection;

import io.postlog.Row;
import io.postlog.UnchangedToast;
import io.postlog.types.Interval;
import org.jspecify.annotations.Nullable;

/**
 * Writes the Java values of a {@link Row} (see DESIGN.md, "Values") as JSON that loses
 * nothing, the one form postlog gives rows in JSON (Kafka records, the dead-letter
 * table's {@code jsonb} columns):
 * <ul>
 * <li>SQL {@code NULL} is {@code null}; booleans and {@code int2}/{@code int4}/
 * {@code int8} are JSON booleans and numbers;</li>
 * <li>{@code numeric} is a string of its exact decimal text with the server's scale
 * ({@code "12.50"}, {@link BigDecimal#toPlainString()}): JSON readers commonly read
 * numbers as binary floating point and round;</li>
 * <li>{@code float4}/{@code float8} are JSON numbers (the shortest decimal that reads
 * back to the same {@code float} or {@code double});</li>
 * <li>NaN and the infinities, of {@code numeric} (decoded as {@code Double}) and of the
 * float types, are the strings {@code "NaN"}, {@code "Infinity"} and {@code "-Infinity"}:
 * JSON has no number for them;</li>
 * <li>{@code bytea} is base64 (RFC 4648, padded);</li>
 * <li>dates and times are ISO-8601 strings, PostgreSQL's infinities {@code "infinity"}
 * and {@code "-infinity"}, {@code time} 24:00 {@code "24:00:00"};</li>
 * <li>an interval is an object of {@code months}, {@code days} and {@code microseconds};
 * arrays are JSON arrays;</li>
 * <li>every other value (text, {@code json}/{@code jsonb} as the server's text, uuid,
 * enums, network and bit types) is a string.</li>
 * </ul>
 * In a row, a column whose TOASTed value the server did not resend is left out. Strings
 * are escaped as JSON requires ({@code \"}, {@code \\}, {@code \b \f \n \r \t}, other
 * control characters as six-character unicode escapes). Stateless and thread-safe.
 */
public final class RowJson {

	private static final Base64.Encoder BASE64 = Base64.getEncoder();

	private static final char[] HEX = "0123456789ABCDEF".toCharArray();

	private RowJson() {
	}

	/**
	 * Writes every column of a row as an object, in the row's order, leaving out
	 * unchanged TOASTed columns.
	 * @param row the row
	 * @return the JSON object
	 */
	public static String row(Row row) {
		return row(row, row.columns());
	}

	/**
	 * Writes the named columns that a row has as an object, in the order given, leaving
	 * out unchanged TOASTed columns.
	 * @param row the row
	 * @param columns the columns
	 * @return the JSON object
	 */
	public static String row(Row row, Collection<String> columns) {
		// About 48 characters a column, so that a typical row's buffer is not grown and
		// copied two or three times on the way.
		StringBuilder json = new StringBuilder(Math.max(64, 48 * columns.size()));
		row(json, row, columns);
		return json.toString();
	}

	/**
	 * Appends the named columns that a row has as an object, in the order given, leaving
	 * out unchanged TOASTed columns: what {@link #row(Row, Collection)} returns, for a
	 * caller writing a larger document into one buffer.
	 * @param json where to append
	 * @param row the row
	 * @param columns the columns
	 */
	public static void row(StringBuilder json, Row row, Collection<String> columns) {
		boolean all = columns == row.columns();
		json.append('{');
		boolean first = true;
		for (String column : columns) {
			if (!all && !row.contains(column)) {
				continue;
			}
			Object value = row.get(column);
			if (value == UnchangedToast.INSTANCE) {
				continue;
			}
			if (!first) {
				json.append(',');
			}
			first = false;
			string(json, column);
			json.append(':');
			value(json, value);
		}
		json.append('}');
	}

	/**
	 * Writes one value as a JSON document.
	 * @param value the value, of a type of DESIGN.md's "Values" table, or {@code null}
	 * @return the JSON
	 */
	public static String value(@Nullable Object value) {
		StringBuilder json = new StringBuilder(16);
		value(json, value);
		return json.toString();
	}

	/**
	 * Appends one value's JSON.
	 * @param json where to append
	 * @param value the value, or {@code null}
	 */
	public static void value(StringBuilder json, @Nullable Object value) {
		if (value == null || value == UnchangedToast.INSTANCE) {
			json.append("null");
		}
		else if (value instanceof String text) {
			string(json, text);
		}
		else if (value instanceof Long number) {
			// Appended as primitives: append(Object) made a string of each number first.
			json.append(number.longValue());
		}
		else if (value instanceof Integer || value instanceof Short) {
			json.append(((Number) value).intValue());
		}
		else if (value instanceof Boolean bool) {
			json.append(bool.booleanValue());
		}
		else if (value instanceof BigDecimal decimal) {
			json.append('"').append(decimal.toPlainString()).append('"');
		}
		else if (value instanceof Double number) {
			floating(json, number, false);
		}
		else if (value instanceof Float number) {
			floating(json, number.doubleValue(), true);
		}
		else if (value instanceof byte[] bytes) {
			json.append('"').append(BASE64.encodeToString(bytes)).append('"');
		}
		else if (value instanceof Interval interval) {
			json.append("{\"months\":")
				.append(interval.months())
				.append(",\"days\":")
				.append(interval.days())
				.append(",\"microseconds\":")
				.append(interval.microseconds())
				.append('}');
		}
		else if (value instanceof OffsetDateTime time && time.getOffset().getTotalSeconds() == 0 && time.getYear() >= 0
				&& time.getYear() <= 9999) {
			utcDateTime(json, time);
		}
		else if (value instanceof Collection<?> elements) {
			json.append('[');
			boolean first = true;
			for (Object element : elements) {
				if (!first) {
					json.append(',');
				}
				first = false;
				value(json, element);
			}
			json.append(']');
		}
		else {
			string(json, text(value));
		}
	}

	/**
	 * Appends a {@code float8}, or a {@code float4} widened to {@code double}: a
	 * {@code float4} is written as the shortest decimal of the {@code float}, not of the
	 * wider {@code double} ({@code 0.1}, not {@code 0.10000000149011612}).
	 */
	private static void floating(StringBuilder json, double number, boolean single) {
		if (Double.isNaN(number)) {
			json.append("\"NaN\"");
		}
		else if (Double.isInfinite(number)) {
			json.append((number > 0) ? "\"Infinity\"" : "\"-Infinity\"");
		}
		else if (single) {
			json.append((float) number);
		}
		else {
			json.append(number);
		}
	}

	/**
	 * Appends a {@code timestamptz} at UTC of the years 0 to 9999 (every one the decoders
	 * give, but the infinities) exactly as {@link DateTimeFormatter#ISO_OFFSET_DATE_TIME}
	 * writes it, {@code "2024-01-01T00:00:01.5Z"}: seconds always, the fraction without
	 * its trailing zeros and only when not zero, {@code Z}. The formatter makes a
	 * {@link BigDecimal} and several strings per value: a fifth of what the Kafka relay
	 * allocated on its delivery thread for a row with one {@code timestamptz}.
	 */
	private static void utcDateTime(StringBuilder json, OffsetDateTime time) {
		json.append('"');
		digits(json, time.getYear(), 4).append('-');
		digits(json, time.getMonthValue(), 2).append('-');
		digits(json, time.getDayOfMonth(), 2).append('T');
		digits(json, time.getHour(), 2).append(':');
		digits(json, time.getMinute(), 2).append(':');
		digits(json, time.getSecond(), 2);
		int nano = time.getNano();
		if (nano != 0) {
			int width = 9;
			while (nano % 10 == 0) {
				nano /= 10;
				width--;
			}
			digits(json.append('.'), nano, width);
		}
		json.append("Z\"");
	}

	/**
	 * Appends a non-negative number with leading zeros to at least {@code width} digits.
	 */
	private static StringBuilder digits(StringBuilder json, int number, int width) {
		for (int power = 1, i = 1; i < width; i++) {
			power *= 10;
			if (number < power) {
				json.append('0');
			}
		}
		return json.append(number);
	}

	private static String text(Object value) {
		if (value instanceof OffsetDateTime time) {
			return time.equals(OffsetDateTime.MAX) ? "infinity" : time.equals(OffsetDateTime.MIN) ? "-infinity"
					: DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(time);
		}
		if (value instanceof LocalDateTime time) {
			return time.equals(LocalDateTime.MAX) ? "infinity"
					: time.equals(LocalDateTime.MIN) ? "-infinity" : DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(time);
		}
		if (value instanceof LocalDate date) {
			return date.equals(LocalDate.MAX) ? "infinity"
					: date.equals(LocalDate.MIN) ? "-infinity" : DateTimeFormatter.ISO_LOCAL_DATE.format(date);
		}
		if (value instanceof LocalTime time) {
			return time.equals(LocalTime.MAX) ? "24:00:00" : DateTimeFormatter.ISO_LOCAL_TIME.format(time);
		}
		if (value instanceof OffsetTime time) {
			return DateTimeFormatter.ISO_OFFSET_TIME.format(time);
		}
		if (value instanceof Instant instant) {
			return DateTimeFormatter.ISO_INSTANT.format(instant);
		}
		// UUIDs, enums, ranges and types without a decoder arrive as the server's text.
		return value.toString();
	}

	/**
	 * Appends a JSON string: the text in runs, only the characters JSON requires escaped
	 * one at a time (appending every character alone made this most of the time of a
	 * row's JSON).
	 */
	private static void string(StringBuilder json, String text) {
		json.append('"');
		int run = 0;
		int length = text.length();
		for (int i = 0; i < length; i++) {
			char c = text.charAt(i);
			if (c >= 0x20 && c != '"' && c != '\\') {
				continue;
			}
			json.append(text, run, i);
			escape(json, c);
			run = i + 1;
		}
		if (run == 0) {
			json.append(text);
		}
		else {
			json.append(text, run, length);
		}
		json.append('"');
	}

	private static void escape(StringBuilder json, char c) {
		switch (c) {
			case '"' -> json.append("\\\"");
			case '\\' -> json.append("\\\\");
			case '\b' -> json.append("\\b");
			case '\f' -> json.append("\\f");
			case '\n' -> json.append("\\n");
			case '\r' -> json.append("\\r");
			case '\t' -> json.append("\\t");
			default -> json.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
		}
	}

}
