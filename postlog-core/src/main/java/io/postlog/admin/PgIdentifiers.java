package io.postlog.admin;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.regex.Pattern;

import io.postlog.TableId;
import org.postgresql.core.Utils;

/**
 * Checks and quotes the names postlog puts into SQL, so that no unvalidated text reaches
 * the server. Slot names follow PostgreSQL's own rule ({@code [a-z0-9_]}, 1 to 63
 * characters); publication, schema and table names may hold any character but NUL, are at
 * most 63 bytes of UTF-8 (longer names the server would silently truncate), and are
 * always quoted. Stateless and thread-safe.
 */
public final class PgIdentifiers {

	/** PostgreSQL's {@code NAMEDATALEN - 1}. */
	static final int MAX_BYTES = 63;

	private static final Pattern SLOT_NAME = Pattern.compile("[a-z0-9_]{1,63}");

	/** What a slot name may be. */
	private static final String SLOT_RULE = "slot names are 1 to 63 characters of lower-case letters, digits and underscores";

	/** What any other name may be. */
	private static final String NAME_RULE = " names are 1 to 63 bytes of UTF-8 without NUL, any other character "
			+ "allowed; postlog always quotes them, so case and every character are kept as written";

	private PgIdentifiers() {
	}

	/**
	 * Returns the slot name if PostgreSQL would accept it.
	 * @param name the slot name
	 * @return the same name
	 * @throws InvalidIdentifierException if it is not 1 to 63 of {@code [a-z0-9_]}
	 */
	public static String requireSlotName(String name) {
		if (name == null || !SLOT_NAME.matcher(name).matches()) {
			throw new InvalidIdentifierException("slot", String.valueOf(name), SLOT_RULE);
		}
		return name;
	}

	/**
	 * Returns the name if it can be quoted into SQL.
	 * @param kind what the name names ({@code publication}, {@code schema},
	 * {@code table})
	 * @param name the name
	 * @return the same name
	 * @throws InvalidIdentifierException if the name is empty, longer than 63 bytes of
	 * UTF-8, or holds NUL
	 */
	public static String requireName(String kind, String name) {
		if (name == null || name.isEmpty()) {
			throw new InvalidIdentifierException(kind, String.valueOf(name), "the name is empty; " + rule(kind));
		}
		if (name.indexOf('\0') >= 0) {
			throw new InvalidIdentifierException(kind, name, "the name contains NUL; " + rule(kind));
		}
		if (name.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
			throw new InvalidIdentifierException(kind, name, "the name is longer than 63 bytes (UTF-8); " + rule(kind));
		}
		return name;
	}

	/**
	 * States what a kind of name may be, as the messages of
	 * {@link InvalidIdentifierException} do.
	 * @param kind {@code slot}, {@code publication}, {@code schema} or {@code table}
	 * @return the rule, one sentence without a full stop
	 */
	public static String rule(String kind) {
		return "slot".equals(kind) ? SLOT_RULE : kind + NAME_RULE;
	}

	/**
	 * Checks and quotes a name: {@code my"pub} becomes {@code "my""pub"}.
	 * @param kind what the name names
	 * @param name the name
	 * @return the quoted identifier
	 * @throws InvalidIdentifierException if the name is not valid
	 */
	public static String quote(String kind, String name) {
		requireName(kind, name);
		try {
			return Utils.escapeIdentifier(null, name).toString();
		}
		catch (SQLException ex) {
			throw new InvalidIdentifierException(kind, name, "the name cannot be quoted");
		}
	}

	/**
	 * Checks and quotes a table as {@code "schema"."table"}.
	 * @param table the table
	 * @return the quoted, qualified name
	 * @throws InvalidIdentifierException if the schema or table name is not valid
	 */
	public static String quote(TableId table) {
		return quote("schema", table.schema()) + "." + quote("table", table.name());
	}

	/**
	 * Renders a name for a message: control characters and quotes are escaped, so a
	 * refused name cannot forge log lines.
	 * @param name the name
	 * @return a printable form
	 */
	public static String printable(String name) {
		StringBuilder printable = new StringBuilder(name.length());
		name.codePoints().forEach((codePoint) -> {
			if (Character.isISOControl(codePoint) || codePoint == '\'' || codePoint == '\\') {
				printable.append(String.format("\\u%04x", codePoint));
			}
			else {
				printable.appendCodePoint(codePoint);
			}
		});
		return printable.toString();
	}

}
