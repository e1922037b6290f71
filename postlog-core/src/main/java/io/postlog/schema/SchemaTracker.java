package io.postlog.schema;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.SchemaChange;
import io.postlog.TableId;
import io.postlog.TableSchema;
import io.postlog.pgoutput.PgOutputMessage;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the last known shape of each published table and turns every Relation message
 * that announces a different one into {@link SchemaChange}s. pgoutput sends a Relation
 * message before the first change of a table in a session and again after anything
 * invalidated the table's cache entry (any {@code ALTER TABLE}, but also
 * {@code ANALYZE}), so only these messages cost work here, never a row: each one reads
 * the catalog once (attribute numbers, nullability, type names), which tells renames from
 * drops plus adds exactly while the table exists. The first Relation message of a table
 * is its starting shape and yields nothing; a Relation message in a transaction before
 * the one the current shape was learnt in (a transaction sent again after a reconnect)
 * changes nothing. Not thread-safe: the reader thread's, across the consumer's sessions.
 */
public final class SchemaTracker {

	private static final Logger logger = LoggerFactory.getLogger(SchemaTracker.class);

	private final @Nullable SchemaCatalog catalog;

	private final Map<Integer, TrackedShape> shapes = new HashMap<>();

	/** Whether DDL messages are the source of nullability (and of every exact step). */
	private boolean ddlEvents;

	/**
	 * Creates a tracker.
	 * @param catalog reads the catalog, or {@code null} to go by the stream alone (then
	 * type names are OIDs, nullability is unknown and renames are told by type only)
	 */
	public SchemaTracker(@Nullable SchemaCatalog catalog) {
		this.catalog = catalog;
	}

	/**
	 * Takes one Relation message.
	 * @param relation the message
	 * @param commitLsn the commit LSN of the transaction it came in, or {@code null}
	 * outside a transaction
	 * @return the schema changes it reveals, in order; empty when the shape is the same
	 */
	public List<SchemaChange> relation(PgOutputMessage.Relation relation, @Nullable Lsn commitLsn) {
		TrackedShape known = this.shapes.get(relation.relationId());
		if (known != null && commitLsn != null && known.lsn() != null && commitLsn.isBefore(known.lsn())) {
			return List.of();
		}
		TrackedShape next = read(relation, commitLsn);
		this.shapes.put(relation.relationId(), next);
		if (known == null || commitLsn == null) {
			return List.of();
		}
		List<SchemaChange> steps = SchemaDiff.steps(known, next, commitLsn);
		if (!steps.isEmpty() && logger.isDebugEnabled()) {
			logger.debug("Relation {} ({}) changed shape at commit LSN {}: {}",
					Integer.toUnsignedString(relation.relationId()), next.schema().table(), commitLsn,
					steps.stream().map(SchemaChange::kind).toList());
		}
		return steps;
	}

	/**
	 * Makes the messages of postlog's event triggers ({@link DdlEvents}) the source of
	 * the shapes: each gives the shape at the DDL's commit, by attribute number, so every
	 * step is exact; Relation messages then no longer take nullability from the catalog,
	 * which may be ahead of the stream.
	 * @return this tracker
	 */
	public SchemaTracker withDdlEvents() {
		this.ddlEvents = true;
		return this;
	}

	/**
	 * Takes one message of postlog's event triggers.
	 * @param content the message content
	 * @param commitLsn the commit LSN of the DDL's transaction
	 * @return the schema changes it reveals, in order: a table not seen before yields
	 * {@link SchemaChange.Kind#CREATE_TABLE} when the command created it, else nothing
	 */
	public List<SchemaChange> ddl(byte[] content, Lsn commitLsn) {
		List<String> fields = DdlEvents.fields(content);
		if (fields.size() < 4 || (fields.size() - 4) % 7 != 0) {
			throw new PostlogException(
					"A '" + DdlEvents.PREFIX + "' message has " + fields.size() + " fields, not 4 and 7 per column");
		}
		String tag = fields.get(0);
		int relationId = (int) Long.parseLong(fields.get(1));
		TableId table = new TableId(fields.get(2), fields.get(3));
		TrackedShape known = this.shapes.get(relationId);
		if (known != null && known.lsn() != null && commitLsn.isBefore(known.lsn())) {
			return List.of();
		}
		if ("DROP TABLE".equals(tag)) {
			this.shapes.remove(relationId);
			return (known != null) ? List.of(new SchemaChange(known.schema().table(), SchemaChange.Kind.DROP_TABLE,
					known.schema(), null, commitLsn)) : List.of();
		}
		int size = (fields.size() - 4) / 7;
		List<TableSchema.Column> columns = new ArrayList<>(size);
		int[] attnums = new int[size];
		int[] modifiers = new int[size];
		boolean[] exact = new boolean[size];
		for (int i = 0; i < size; i++) {
			int at = 4 + 7 * i;
			attnums[i] = Integer.parseInt(fields.get(at));
			modifiers[i] = Integer.parseInt(fields.get(at + 3));
			exact[i] = true;
			columns.add(new TableSchema.Column(fields.get(at + 1), (int) Long.parseLong(fields.get(at + 2)),
					fields.get(at + 4), !"true".equals(fields.get(at + 5)), "true".equals(fields.get(at + 6))));
		}
		TrackedShape next = new TrackedShape(new TableSchema(table, columns), attnums, modifiers, exact, commitLsn);
		this.shapes.put(relationId, next);
		if (known == null) {
			return "CREATE TABLE".equals(tag)
					? List.of(new SchemaChange(table, SchemaChange.Kind.CREATE_TABLE, null, next.schema(), commitLsn))
					: List.of();
		}
		return SchemaDiff.steps(known, next, commitLsn);
	}

	/**
	 * Returns the last known shape of a table.
	 * @param table the table
	 * @return the shape, or {@code null} if no Relation message announced it yet
	 */
	public @Nullable TableSchema shape(TableId table) {
		for (TrackedShape shape : this.shapes.values()) {
			if (shape.schema().table().equals(table)) {
				return shape.schema();
			}
		}
		return null;
	}

	private TrackedShape read(PgOutputMessage.Relation relation, @Nullable Lsn commitLsn) {
		SchemaCatalog.CatalogRelation live = null;
		if (this.catalog != null) {
			live = this.catalog.read(relation);
		}
		List<PgOutputMessage.Column> columns = relation.columns();
		int size = columns.size();
		List<TableSchema.Column> schema = new ArrayList<>(size);
		int[] attnums = new int[size];
		int[] modifiers = new int[size];
		boolean[] nullabilityKnown = new boolean[size];
		for (int i = 0; i < size; i++) {
			PgOutputMessage.Column column = columns.get(i);
			SchemaCatalog.CatalogRelation.Attribute attribute = (live != null) ? live.attributes().get(column.name())
					: null;
			boolean agrees = attribute != null && attribute.typeOid() == column.typeOid()
					&& attribute.typeModifier() == column.typeModifier();
			attnums[i] = agrees ? attribute.attnum() : 0;
			modifiers[i] = column.typeModifier();
			nullabilityKnown[i] = agrees && !this.ddlEvents;
			String typeName = (live != null && live.typeNames().size() == size) ? live.typeNames().get(i)
					: Integer.toUnsignedString(column.typeOid());
			schema.add(new TableSchema.Column(column.name(), column.typeOid(), typeName,
					!agrees || !attribute.notNull(), column.isKey()));
		}
		TableId table = new TableId(relation.namespace(), relation.relationName());
		return new TrackedShape(new TableSchema(table, schema), attnums, modifiers, nullabilityKnown, commitLsn);
	}

}
