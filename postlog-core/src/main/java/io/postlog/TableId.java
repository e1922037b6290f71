package io.postlog;

import java.util.Objects;

/**
 * A table's schema-qualified name, as the server reports it (case kept, unquoted).
 *
 * @param schema the schema, for example {@code public}
 * @param name the table name
 */
public record TableId(String schema, String name) {

	/**
	 * Creates a table id.
	 * @param schema the schema
	 * @param name the table name
	 */
	public TableId {
		Objects.requireNonNull(schema, "schema");
		Objects.requireNonNull(name, "name");
		if (schema.isEmpty() || name.isEmpty()) {
			throw new IllegalArgumentException("Schema and table name must not be empty");
		}
	}

	/**
	 * Parses {@code schema.table} or {@code table}; an unqualified name is in
	 * {@code public}. Names are taken as written: no quoting or case folding.
	 * @param text the name to parse
	 * @return the table id
	 * @throws IllegalArgumentException if the text is empty or has more than one dot
	 */
	public static TableId parse(String text) {
		String trimmed = text.trim();
		int dot = trimmed.indexOf('.');
		if (dot < 0) {
			return new TableId("public", requireName(trimmed, text));
		}
		if (trimmed.indexOf('.', dot + 1) >= 0) {
			throw new IllegalArgumentException("Not a table name (expected schema.table): '" + text + "'");
		}
		return new TableId(requireName(trimmed.substring(0, dot), text), requireName(trimmed.substring(dot + 1), text));
	}

	private static String requireName(String part, String text) {
		if (part.isEmpty()) {
			throw new IllegalArgumentException("Not a table name (expected schema.table): '" + text + "'");
		}
		return part;
	}

	/**
	 * Returns {@code schema.name}, with control characters escaped as {@code \\uXXXX} so
	 * that a table name cannot forge a log line.
	 */
	@Override
	public String toString() {
		return printable(this.schema) + "." + printable(this.name);
	}

	private static String printable(String name) {
		if (name.chars().noneMatch(Character::isISOControl)) {
			return name;
		}
		StringBuilder printable = new StringBuilder(name.length() + 8);
		name.chars().forEach((c) -> {
			if (Character.isISOControl(c)) {
				printable.append(String.format("\\u%04x", c));
			}
			else {
				printable.append((char) c);
			}
		});
		return printable.toString();
	}

}
