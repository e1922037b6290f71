package io.postlog.schema;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.TableSchema;
import org.jspecify.annotations.Nullable;

/**
 * One message of postlog's event triggers ({@link DdlEvents}), read. Two layouts exist:
 * <ul>
 * <li>the current one, five fields: {@code 2}, the command tag, the table's OID, its
 * shape before the command as the triggers last kept it (empty when they kept none, and
 * for {@code CREATE TABLE}) and its shape after (empty for {@code DROP TABLE}); a shape
 * is itself fields: the schema, the table's name, then seven per column;</li>
 * <li>the first one, still found in WAL written before an upgrade: the command tag, the
 * OID, the schema, the name, and seven fields per column after the command (none for
 * {@code DROP TABLE}), with no shape before.</li>
 * </ul>
 * The seven fields of a column are its attribute number, name, type OID, type modifier,
 * printed type, {@code NOT NULL} and replica identity membership, all as of the DDL, so
 * every column's nullability is known.
 *
 * @param tag the command tag, such as {@code ALTER TABLE}
 * @param relationId the table's OID
 * @param before the shape before the command, or {@code null} when the message has none
 * @param after the shape after the command, or {@code null} for {@code DROP TABLE}
 */
record DdlMessage(String tag, int relationId, @Nullable TrackedShape before, @Nullable TrackedShape after) {

	private static final String LAYOUT = "2";

	private static final int PER_COLUMN = 7;

	/** Whether the command created the table. */
	boolean creates() {
		return "CREATE TABLE".equals(this.tag);
	}

	/**
	 * Reads a message's content.
	 * @param content the content
	 * @param commitLsn the commit LSN of the DDL's transaction, the shape after's
	 * @return the message
	 * @throws PostlogException if the content is not such a message
	 */
	static DdlMessage read(byte[] content, Lsn commitLsn) {
		List<String> fields = DdlEvents.fields(content);
		try {
			if (fields.size() == 5 && LAYOUT.equals(fields.get(0))) {
				return new DdlMessage(fields.get(1), (int) Long.parseLong(fields.get(2)), shape(fields.get(3), null),
						shape(fields.get(4), commitLsn));
			}
			if (fields.size() < 4 || (fields.size() - 4) % PER_COLUMN != 0) {
				throw new PostlogException("A '" + DdlEvents.PREFIX + "' message has " + fields.size()
						+ " fields, neither 5 nor 4 and " + PER_COLUMN + " per column");
			}
			String tag = fields.get(0);
			TrackedShape after = "DROP TABLE".equals(tag) ? null : shape(fields.subList(2, fields.size()), commitLsn);
			return new DdlMessage(tag, (int) Long.parseLong(fields.get(1)), null, after);
		}
		catch (NumberFormatException ex) {
			throw new PostlogException("A '" + DdlEvents.PREFIX + "' message has a malformed number", ex);
		}
	}

	private static @Nullable TrackedShape shape(String text, @Nullable Lsn lsn) {
		if (text.isEmpty()) {
			return null;
		}
		List<String> fields = DdlEvents.fields(text.getBytes(StandardCharsets.UTF_8));
		if (fields.size() < 2 || (fields.size() - 2) % PER_COLUMN != 0) {
			throw new PostlogException("A shape in a '" + DdlEvents.PREFIX + "' message has " + fields.size()
					+ " fields, not 2 and " + PER_COLUMN + " per column");
		}
		return shape(fields, lsn);
	}

	/** Reads the schema, the name and seven fields per column. */
	private static TrackedShape shape(List<String> fields, @Nullable Lsn lsn) {
		int size = (fields.size() - 2) / PER_COLUMN;
		List<TableSchema.Column> columns = new ArrayList<>(size);
		int[] attnums = new int[size];
		int[] modifiers = new int[size];
		boolean[] exact = new boolean[size];
		for (int i = 0; i < size; i++) {
			int at = 2 + PER_COLUMN * i;
			attnums[i] = Integer.parseInt(fields.get(at));
			modifiers[i] = Integer.parseInt(fields.get(at + 3));
			exact[i] = true;
			columns.add(new TableSchema.Column(fields.get(at + 1), (int) Long.parseLong(fields.get(at + 2)),
					fields.get(at + 4), !"true".equals(fields.get(at + 5)), "true".equals(fields.get(at + 6))));
		}
		TableSchema schema = new TableSchema(new TableId(fields.get(0), fields.get(1)), columns);
		return new TrackedShape(schema, attnums, modifiers, exact, lsn);
	}

}
