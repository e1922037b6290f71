package io.postlog.decoder;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.postlog.Lsn;
import io.postlog.types.PgType;
import io.postlog.types.ValueDecoders;
import io.postlog.types.ValueDecodingException;
import org.jspecify.annotations.Nullable;

/**
 * Parses one wal2json format-version 2 document into a {@link Wal2JsonMessage}, strictly:
 * every member must be one wal2json writes for that action, of the JSON type it writes,
 * so that a corrupted document is an error rather than a different message. Stateless.
 */
final class Wal2JsonParser {

	private static final String PLUGIN = "wal2json";

	private static final Set<String> TRANSACTION = Set.of("action", "xid", "timestamp", "origin", "lsn", "nextlsn");

	private static final Set<String> CHANGE = Set.of("action", "xid", "timestamp", "origin", "lsn", "schema", "table",
			"columns", "identity", "pk");

	private static final Set<String> TRUNCATE = Set.of("action", "xid", "timestamp", "origin", "lsn", "schema",
			"table");

	private static final Set<String> MESSAGE = Set.of("action", "xid", "timestamp", "origin", "lsn", "transactional",
			"prefix", "content");

	private static final Set<String> COLUMN = Set.of("name", "type", "typeoid", "value");

	private Wal2JsonParser() {
	}

	static Wal2JsonMessage parse(byte[] document) {
		if (!(Json.parse(document, "document") instanceof Json.Members object)) {
			throw error("document", "expected an object");
		}
		Map<String, Json.Value> members = object.members();
		String action = requiredString(members, "action");
		return switch (action) {
			case "B" -> {
				only(members, TRANSACTION, "begin");
				yield new Wal2JsonMessage.Begin(uint32(members, "xid"), timestamp(members), uint32(members, "origin"),
						lsn(members, "lsn"), lsn(members, "nextlsn"));
			}
			case "C" -> {
				only(members, TRANSACTION, "commit");
				yield new Wal2JsonMessage.Commit(uint32(members, "xid"), timestamp(members), uint32(members, "origin"),
						lsn(members, "lsn"), lsn(members, "nextlsn"));
			}
			case "I", "U", "D" -> change(action.charAt(0), members);
			case "T" -> {
				only(members, TRUNCATE, "truncate");
				yield new Wal2JsonMessage.Truncate(uint32(members, "xid"), timestamp(members),
						uint32(members, "origin"), lsn(members, "lsn"), requiredString(members, "schema"),
						requiredString(members, "table"));
			}
			case "M" -> message(members);
			default -> throw error("document", "unknown action");
		};
	}

	private static Wal2JsonMessage change(char action, Map<String, Json.Value> members) {
		only(members, CHANGE, "change");
		List<Wal2JsonMessage.Column> columns = columns(members, "columns", true);
		List<Wal2JsonMessage.Column> identity = columns(members, "identity", true);
		if ((action == 'D') != (columns == null)) {
			throw error("change", (action == 'D') ? "a delete with new columns" : "a change without columns");
		}
		if (action == 'I' && identity != null) {
			throw error("change", "an insert with an old identity");
		}
		return new Wal2JsonMessage.Change(action, uint32(members, "xid"), timestamp(members), uint32(members, "origin"),
				lsn(members, "lsn"), requiredString(members, "schema"), requiredString(members, "table"), columns,
				identity, columns(members, "pk", false));
	}

	private static Wal2JsonMessage message(Map<String, Json.Value> members) {
		only(members, MESSAGE, "message");
		if (!(members.get("transactional") instanceof Json.Bool transactional)) {
			throw error("message", "expected transactional as true or false");
		}
		if (!(members.get("content") instanceof Json.Text content)) {
			throw error("message", "expected the content as a string");
		}
		return new Wal2JsonMessage.Message(uint32(members, "xid"), timestamp(members), uint32(members, "origin"),
				lsn(members, "lsn"), transactional.value(), requiredString(members, "prefix"), content.bytes());
	}

	private static @Nullable List<Wal2JsonMessage.Column> columns(Map<String, Json.Value> members, String name,
			boolean withValues) {
		Json.Value value = members.get(name);
		if (value == null) {
			return null;
		}
		if (!(value instanceof Json.Items items)) {
			throw error(name, "expected an array");
		}
		List<Wal2JsonMessage.Column> columns = new ArrayList<>(items.items().size());
		for (Json.Value item : items.items()) {
			if (!(item instanceof Json.Members column)) {
				throw error(name, "expected an object per column");
			}
			Map<String, Json.Value> fields = column.members();
			only(fields, COLUMN, name);
			Json.Value columnValue = fields.get("value");
			if (withValues != (columnValue != null)) {
				throw error(name, withValues ? "a column without a value" : "a key column with a value");
			}
			if (columnValue instanceof Json.Items || columnValue instanceof Json.Members) {
				throw error(name, "a value that is an array or an object");
			}
			Long typeOid = uint32(fields, "typeoid", true);
			columns.add(new Wal2JsonMessage.Column(requiredString(fields, "name"), optionalString(fields, "type"),
					(typeOid != null) ? (int) (long) typeOid : null, columnValue));
		}
		return columns;
	}

	private static void only(Map<String, Json.Value> members, Set<String> allowed, String what) {
		for (String member : members.keySet()) {
			if (!allowed.contains(member)) {
				throw error(what, "unexpected member '" + printable(member) + "'");
			}
		}
	}

	private static String requiredString(Map<String, Json.Value> members, String name) {
		String value = optionalString(members, name);
		if (value == null) {
			throw error(name, "missing");
		}
		return value;
	}

	private static @Nullable String optionalString(Map<String, Json.Value> members, String name) {
		Json.Value value = members.get(name);
		if (value == null) {
			return null;
		}
		if (!(value instanceof Json.Text text)) {
			throw error(name, "expected a string");
		}
		return text.string();
	}

	private static @Nullable Long uint32(Map<String, Json.Value> members, String name) {
		return uint32(members, name, false);
	}

	/**
	 * An xid, origin id or type OID: an unsigned 32-bit number, which wal2json prints
	 * with {@code %u} but a type OID with {@code %d} (negative above 2^31).
	 */
	private static @Nullable Long uint32(Map<String, Json.Value> members, String name, boolean signedToo) {
		Json.Value value = members.get(name);
		if (value == null || value == Json.Null.INSTANCE) {
			return null;
		}
		if (!(value instanceof Json.Numeral numeral)) {
			throw error(name, "expected a number");
		}
		long number;
		try {
			number = Long.parseLong(new String(numeral.text(), java.nio.charset.StandardCharsets.US_ASCII));
		}
		catch (NumberFormatException ex) {
			throw error(name, "expected an integer");
		}
		if (number > 0xFFFFFFFFL || number < (signedToo ? Integer.MIN_VALUE : 0)) {
			throw error(name, "out of range");
		}
		return number;
	}

	private static @Nullable Instant timestamp(Map<String, Json.Value> members) {
		Json.Value value = members.get("timestamp");
		if (value == null || value == Json.Null.INSTANCE) {
			return null;
		}
		if (!(value instanceof Json.Text text)) {
			throw error("timestamp", "expected a string");
		}
		try {
			Object time = ValueDecoders.standard().decodeText(PgType.TIMESTAMPTZ, text.bytes());
			return ((OffsetDateTime) time).toInstant();
		}
		catch (ValueDecodingException ex) {
			throw error("timestamp", ex.reason());
		}
	}

	private static @Nullable Lsn lsn(Map<String, Json.Value> members, String name) {
		String text = optionalString(members, name);
		if (text == null) {
			return null;
		}
		try {
			return Lsn.parse(text);
		}
		catch (IllegalArgumentException ex) {
			throw error(name, "not an LSN");
		}
	}

	private static String printable(String name) {
		return name.replaceAll("[^A-Za-z0-9_-]", "?");
	}

	private static PluginDecodingException error(String what, String reason) {
		return new PluginDecodingException(PLUGIN, what, -1, reason);
	}

}
