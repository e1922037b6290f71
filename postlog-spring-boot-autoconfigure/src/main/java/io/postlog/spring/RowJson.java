package io.postlog.spring;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.HexFormat;

import io.postlog.Row;
import io.postlog.UnchangedToast;
import io.postlog.types.Interval;
import org.jspecify.annotations.Nullable;

/**
 * Writes a {@link Row} as a JSON object, for the dead-letter table's {@code jsonb}
 * columns: SQL {@code NULL} is {@code null}; booleans and integers are JSON booleans and
 * numbers; {@code numeric} is a JSON number with its scale, or the string {@code "NaN"},
 * {@code "Infinity"} or {@code "-Infinity"}; {@code float4}/{@code float8} are numbers
 * (their special values strings); {@code bytea} is a string in PostgreSQL's hex form
 * ({@code "\\x0a1b"}); arrays are JSON arrays; an interval is an object with
 * {@code months}, {@code days} and {@code microseconds}; every other value (text, json
 * and jsonb text, uuid, dates and times in ISO-8601, network and bit types) is a string.
 * An unchanged TOASTed column, whose value the server did not send, is left out.
 * Stateless.
 */
final class RowJson {

	private RowJson() {
	}

	static String write(Row row) {
		return write(row, row.columns());
	}

	static String write(Row row, Collection<String> columns) {
		StringBuilder json = new StringBuilder("{");
		for (String column : columns) {
			if (!row.contains(column) || row.isUnchangedToast(column)) {
				continue;
			}
			if (json.length() > 1) {
				json.append(',');
			}
			string(json, column);
			json.append(':');
			value(json, row.get(column));
		}
		return json.append('}').toString();
	}

	private static void value(StringBuilder json, @Nullable Object value) {
		if (value == null || value == UnchangedToast.INSTANCE) {
			json.append("null");
		}
		else if (value instanceof Boolean || value instanceof Short || value instanceof Integer || value instanceof Long
				|| value instanceof BigInteger) {
			json.append(value);
		}
		else if (value instanceof BigDecimal decimal) {
			json.append(decimal.toPlainString());
		}
		else if (value instanceof Float || value instanceof Double) {
			double number = ((Number) value).doubleValue();
			if (Double.isFinite(number)) {
				json.append(value);
			}
			else {
				string(json, Double.isNaN(number) ? "NaN" : (number > 0) ? "Infinity" : "-Infinity");
			}
		}
		else if (value instanceof byte[] bytes) {
			string(json, "\\x" + HexFormat.of().formatHex(bytes));
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
			string(json, value.toString());
		}
	}

	private static void string(StringBuilder json, String text) {
		json.append('"');
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '"' -> json.append("\\\"");
				case '\\' -> json.append("\\\\");
				case '\n' -> json.append("\\n");
				case '\r' -> json.append("\\r");
				case '\t' -> json.append("\\t");
				default -> {
					if (c < 0x20 || c == 0) {
						json.append(String.format("\\u%04x", (int) c));
					}
					else {
						json.append(c);
					}
				}
			}
		}
		json.append('"');
	}

}
