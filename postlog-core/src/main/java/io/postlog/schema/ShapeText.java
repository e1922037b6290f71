package io.postlog.schema;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.TableSchema;

/**
 * A {@link TrackedShape} as text, so that a checkpoint store can keep it beside its
 * position: a version, the table's schema and name, then per column its name, type OID,
 * printed type, nullability, key flag, attribute number, type modifier and whether its
 * nullability came from the catalog. Every field is written as its length in UTF-8 bytes,
 * a colon and its text (as the DDL event messages are), so no name needs escaping. Only
 * names, types and flags: never a row value. Stateless.
 */
final class ShapeText {

	private static final String VERSION = "1";

	private static final int PER_COLUMN = 8;

	private ShapeText() {
	}

	static String encode(TrackedShape shape) {
		StringBuilder text = new StringBuilder(64 + 48 * shape.columns().size());
		field(text, VERSION);
		field(text, shape.schema().table().schema());
		field(text, shape.schema().table().name());
		for (int i = 0; i < shape.columns().size(); i++) {
			TableSchema.Column column = shape.columns().get(i);
			field(text, column.name());
			field(text, Integer.toUnsignedString(column.typeOid()));
			field(text, column.typeName());
			field(text, Boolean.toString(column.nullable()));
			field(text, Boolean.toString(column.key()));
			field(text, Integer.toString(shape.attnums()[i]));
			field(text, Integer.toString(shape.typeModifiers()[i]));
			field(text, Boolean.toString(shape.nullabilityKnown()[i]));
		}
		return text.toString();
	}

	/**
	 * Reads a shape written by {@link #encode}, as learnt outside a transaction.
	 * @throws PostlogException if the text is not such a shape
	 */
	static TrackedShape decode(String text) {
		List<String> fields = DdlEvents.fields(text.getBytes(StandardCharsets.UTF_8));
		if (fields.size() < 3 || !VERSION.equals(fields.get(0)) || (fields.size() - 3) % PER_COLUMN != 0) {
			throw new PostlogException("A kept table shape has " + fields.size() + " fields or another version");
		}
		int size = (fields.size() - 3) / PER_COLUMN;
		List<TableSchema.Column> columns = new ArrayList<>(size);
		int[] attnums = new int[size];
		int[] modifiers = new int[size];
		boolean[] nullabilityKnown = new boolean[size];
		try {
			for (int i = 0; i < size; i++) {
				int at = 3 + PER_COLUMN * i;
				columns.add(new TableSchema.Column(fields.get(at), Integer.parseUnsignedInt(fields.get(at + 1)),
						fields.get(at + 2), Boolean.parseBoolean(fields.get(at + 3)),
						Boolean.parseBoolean(fields.get(at + 4))));
				attnums[i] = Integer.parseInt(fields.get(at + 5));
				modifiers[i] = Integer.parseInt(fields.get(at + 6));
				nullabilityKnown[i] = Boolean.parseBoolean(fields.get(at + 7));
			}
		}
		catch (NumberFormatException ex) {
			throw new PostlogException("A kept table shape has a malformed number", ex);
		}
		TableSchema schema = new TableSchema(new TableId(fields.get(1), fields.get(2)), columns);
		return new TrackedShape(schema, attnums, modifiers, nullabilityKnown, null);
	}

	private static void field(StringBuilder text, String value) {
		text.append(value.getBytes(StandardCharsets.UTF_8).length).append(':').append(value);
	}

}
