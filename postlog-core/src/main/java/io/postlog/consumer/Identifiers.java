package io.postlog.consumer;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

import io.postlog.TableId;

/**
 * Checks names before anything reaches the server: slot names by PostgreSQL's own rule,
 * publication, schema and table names as plain identifiers (letters, digits, underscores
 * and dollar signs, case kept, at most 63 bytes), so that no text that would need more
 * than double quotes ever reaches SQL.
 */
final class Identifiers {

	private static final Pattern SLOT = Pattern.compile("[a-z0-9_]{1,63}");

	private static final Pattern IDENTIFIER = Pattern.compile("[\\p{L}_][\\p{L}\\p{N}_$]*");

	private Identifiers() {
	}

	static void checkSlotName(String name) {
		if (!SLOT.matcher(name).matches()) {
			throw new ReplicationConsumerException("Invalid slot name '" + printable(name)
					+ "': PostgreSQL allows only lower-case letters, digits and underscores, at most 63 characters");
		}
	}

	static void checkPublicationName(String name) {
		check(name, "publication name");
	}

	static void checkTable(TableId table) {
		check(table.schema(), "schema name");
		check(table.name(), "table name");
	}

	private static void check(String name, String what) {
		if (!IDENTIFIER.matcher(name).matches() || name.getBytes(StandardCharsets.UTF_8).length > 63) {
			throw new ReplicationConsumerException("Invalid " + what + " '" + printable(name)
					+ "': use letters, digits, underscores and dollar signs, starting with a letter or "
					+ "underscore, at most 63 bytes");
		}
	}

	private static String printable(String name) {
		StringBuilder builder = new StringBuilder();
		name.codePoints()
			.limit(80)
			.forEach((c) -> builder
				.append(Character.isISOControl(c) ? "\\u" + Integer.toHexString(c) : new String(Character.toChars(c))));
		return builder.toString();
	}

}
