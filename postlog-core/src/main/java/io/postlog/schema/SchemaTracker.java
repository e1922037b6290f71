package io.postlog.schema;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

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
 * is its starting shape and yields nothing, unless a shape was kept for it
 * ({@link #startFrom(Map)}).
 * <p>
 * Each table keeps a short history of the shapes it took, by the commit LSN they were
 * learnt at: the newest one at or before the acknowledged position and every later one
 * (older ones are pruned whenever a table's shape changes or a session starts). A session
 * that streams again from a position first calls {@link #rewind(Lsn)}, which goes back to
 * the shapes in force there, so a transaction sent again yields the same schema changes
 * again (same kind, shapes and commit LSN), in the same place: at-least-once holds for
 * schema changes as it does for rows. A Relation message in a transaction before the one
 * the current shape was learnt in changes nothing. The history lives in memory; a
 * checkpoint store that keeps shapes writes {@link #shapesAt(Lsn) the shapes in force at
 * each checkpoint} with it, and a new process {@link #startFrom(Map) starts from them},
 * so that after a restart the first Relation message of a table is compared with the
 * shape as of the checkpoint; without one, it is the table's starting shape again. Not
 * thread-safe but for {@link #shapesAt(Lsn)}, which any thread may call: the rest is the
 * reader thread's, across the consumer's sessions.
 */
public final class SchemaTracker {

	private static final Logger logger = LoggerFactory.getLogger(SchemaTracker.class);

	private final @Nullable SchemaCatalog catalog;

	/**
	 * Each table's shapes, oldest first; a {@code null} shape marks a dropped table. Its
	 * monitor guards every access: {@link #shapesAt(Lsn)} reads it from another thread.
	 */
	private final Map<Integer, Deque<Learnt>> shapes = new HashMap<>();

	/** The acknowledged position, below which one shape per table is enough. */
	private Supplier<Lsn> acknowledged = () -> Lsn.INVALID;

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
	 * Prunes each table's history by the acknowledged position as it moves: of the shapes
	 * learnt before it only the newest is kept.
	 * @param acknowledged the acknowledged position, read whenever a shape changes
	 * @return this tracker
	 */
	public SchemaTracker prunedBy(Supplier<Lsn> acknowledged) {
		this.acknowledged = acknowledged;
		return this;
	}

	/**
	 * Goes back to the shapes in force at a position, before a session streams again from
	 * it: what was learnt in a transaction at or after it is forgotten (a table first
	 * seen there is unknown again), and the history before it is pruned to its newest
	 * shape. Shapes learnt outside a transaction are kept.
	 * @param from the position the stream resumes at: every transaction the session
	 * delivers commits at or after it
	 */
	public void rewind(Lsn from) {
		synchronized (this.shapes) {
			rewindLocked(from);
		}
	}

	private void rewindLocked(Lsn from) {
		Iterator<Deque<Learnt>> tables = this.shapes.values().iterator();
		while (tables.hasNext()) {
			Deque<Learnt> history = tables.next();
			while (!history.isEmpty() && !learntBefore(history.peekLast(), from)) {
				history.removeLast();
			}
			prune(history, from);
			if (history.isEmpty() || (history.size() == 1 && history.peekFirst().shape() == null)) {
				tables.remove();
			}
		}
	}

	/**
	 * Returns how many shapes the tracker keeps, across tables (dropped tables count
	 * once): what a history costs.
	 * @return the count
	 */
	int kept() {
		synchronized (this.shapes) {
			return this.shapes.values().stream().mapToInt(Deque::size).sum();
		}
	}

	/**
	 * Starts from shapes kept with a checkpoint ({@link #shapesAt(Lsn)} of a former
	 * process): each becomes its table's known shape, as if learnt outside a transaction,
	 * so the table's first Relation message is compared with it. A text that cannot be
	 * read is left out (logged): that table starts at its first Relation message. Call it
	 * before the first session.
	 * @param kept each table's shape text by relation OID
	 */
	public void startFrom(Map<Integer, String> kept) {
		synchronized (this.shapes) {
			kept.forEach((relationId, text) -> {
				TrackedShape shape;
				try {
					shape = ShapeText.decode(text);
				}
				catch (PostlogException ex) {
					logger.warn("The kept shape of relation {} cannot be read ({}); its first Relation message is its "
							+ "starting shape", Integer.toUnsignedString(relationId), ex.getMessage());
					return;
				}
				Deque<Learnt> history = new ArrayDeque<>(2);
				history.add(new Learnt(shape, null, text));
				this.shapes.put(relationId, history);
			});
		}
	}

	/**
	 * Returns the shapes in force after the transaction that commits at a position, as
	 * text for a checkpoint store to keep with that position: for each table known then
	 * (and not dropped), its newest shape learnt at or before it. Thread-safe; the
	 * position must not lie before the acknowledged position (the history before it is
	 * pruned).
	 * @param position the commit LSN of the checkpoint about to be written
	 * @return each table's shape text by relation OID
	 */
	public Map<Integer, String> shapesAt(Lsn position) {
		synchronized (this.shapes) {
			Map<Integer, String> texts = new HashMap<>();
			this.shapes.forEach((relationId, history) -> {
				String text = null;
				for (Learnt learnt : history) {
					if (learnt.lsn() != null && learnt.lsn().isAfter(position)) {
						break;
					}
					text = learnt.text();
				}
				if (text != null) {
					texts.put(relationId, text);
				}
			});
			return texts;
		}
	}

	/**
	 * Takes one Relation message.
	 * @param relation the message
	 * @param commitLsn the commit LSN of the transaction it came in, or {@code null}
	 * outside a transaction
	 * @return the schema changes it reveals, in order; empty when the shape is the same
	 */
	public List<SchemaChange> relation(PgOutputMessage.Relation relation, @Nullable Lsn commitLsn) {
		Learnt last = last(relation.relationId());
		if (last != null && commitLsn != null && last.lsn() != null && commitLsn.isBefore(last.lsn())) {
			return List.of();
		}
		TrackedShape known = (last != null) ? last.shape() : null;
		TrackedShape next = read(relation, commitLsn, known);
		if (known == null || commitLsn == null) {
			learn(relation.relationId(), next, commitLsn, true);
			return List.of();
		}
		List<SchemaChange> steps = SchemaDiff.steps(known, next, commitLsn);
		learn(relation.relationId(), settled(known, next, steps), commitLsn, !steps.isEmpty());
		if (!steps.isEmpty() && logger.isDebugEnabled()) {
			logger.debug("Relation {} ({}) changed shape at commit LSN {}: {}",
					Integer.toUnsignedString(relation.relationId()), next.schema().table(), commitLsn,
					steps.stream().map(SchemaChange::kind).toList());
		}
		return steps;
	}

	/**
	 * Takes the shape a backfill read a table in, at its chunk's high watermark, so that
	 * a shape the stream has not shown yet is announced before the chunk's rows, in the
	 * watermark's transaction. A Relation message that later announces the same shape
	 * then changes nothing. The shape is taken only when it is at least as new as the one
	 * the stream last showed: that one was learnt in a transaction committed before the
	 * backfill read the catalog (else the stream is ahead of the backfill, and its shape
	 * stays). With DDL events nothing is taken: the DDL's own message, committed before
	 * the backfill read the catalog, came first.
	 * @param relation the shape read, as a Relation message would announce it
	 * @param plannedAt the WAL insert position read after the catalog was read
	 * @param commitLsn the commit LSN of the high watermark's transaction
	 * @return the schema changes it reveals, in order; empty when the shape is the same,
	 * the table was not seen before, or the stream is ahead
	 */
	public List<SchemaChange> backfillRead(PgOutputMessage.Relation relation, Lsn plannedAt, Lsn commitLsn) {
		if (this.ddlEvents) {
			return List.of();
		}
		Learnt last = last(relation.relationId());
		if (last != null && last.lsn() != null && !last.lsn().isBefore(plannedAt)) {
			return List.of();
		}
		return relation(relation, commitLsn);
	}

	/**
	 * Returns whether the messages of postlog's event triggers are the source of shapes
	 * ({@link #withDdlEvents()}): else they are ordinary logical messages.
	 * @return {@code true} with DDL events
	 */
	public boolean ddlEvents() {
		return this.ddlEvents;
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
	 * Takes one message of postlog's event triggers. A table this tracker does not know
	 * (its first message in this process) is compared with the shape the triggers kept
	 * before the command, so a DDL streamed again after a restart is announced as it was
	 * the first time, whatever the checkpoint store.
	 * @param content the message content
	 * @param commitLsn the commit LSN of the DDL's transaction
	 * @return the schema changes it reveals, in order: a table known neither here nor to
	 * the triggers yields {@link SchemaChange.Kind#CREATE_TABLE} when the command created
	 * it, else nothing
	 */
	public List<SchemaChange> ddl(byte[] content, Lsn commitLsn) {
		DdlMessage message = DdlMessage.read(content, commitLsn);
		int relationId = message.relationId();
		Learnt last = last(relationId);
		if (last != null && last.lsn() != null && commitLsn.isBefore(last.lsn())) {
			return List.of();
		}
		TrackedShape known = (last != null) ? last.shape() : null;
		if (known == null && !message.creates()) {
			known = message.before();
		}
		TrackedShape next = message.after();
		if (next == null) {
			if (known == null) {
				return List.of();
			}
			learn(relationId, null, commitLsn, true);
			return List.of(new SchemaChange(known.schema().table(), SchemaChange.Kind.DROP_TABLE, known.schema(), null,
					commitLsn));
		}
		if (known == null) {
			learn(relationId, next, commitLsn, true);
			return message.creates() ? List.of(new SchemaChange(next.schema().table(), SchemaChange.Kind.CREATE_TABLE,
					null, next.schema(), commitLsn)) : List.of();
		}
		List<SchemaChange> steps = SchemaDiff.steps(known, next, commitLsn);
		learn(relationId, next, commitLsn, !steps.isEmpty());
		return steps;
	}

	private @Nullable Learnt last(int relationId) {
		synchronized (this.shapes) {
			Deque<Learnt> history = this.shapes.get(relationId);
			return (history != null) ? history.peekLast() : null;
		}
	}

	/**
	 * Records a table's shape. A shape that changed nothing replaces the last one but
	 * keeps its position, so that going back to a position after it still finds it; one
	 * learnt outside a transaction starts the history again.
	 */
	private void learn(int relationId, @Nullable TrackedShape shape, @Nullable Lsn lsn, boolean changed) {
		String text = (shape != null) ? ShapeText.encode(shape) : null;
		synchronized (this.shapes) {
			learnLocked(relationId, shape, lsn, changed, text);
		}
	}

	private void learnLocked(int relationId, @Nullable TrackedShape shape, @Nullable Lsn lsn, boolean changed,
			@Nullable String text) {
		Deque<Learnt> history = this.shapes.computeIfAbsent(relationId, (id) -> new ArrayDeque<>(2));
		if (lsn == null) {
			history.clear();
		}
		Learnt last = history.peekLast();
		if (!changed && last != null) {
			history.removeLast();
			history.addLast(new Learnt(shape, last.lsn(), text));
			return;
		}
		history.addLast(new Learnt(shape, lsn, text));
		prune(history, this.acknowledged.get());
		if (history.size() == 1 && shape == null) {
			// Dropped before the acknowledged position: as good as never seen.
			this.shapes.remove(relationId);
		}
	}

	/** Keeps, of the shapes learnt before a position, only the newest. */
	private static void prune(Deque<Learnt> history, Lsn position) {
		while (history.size() > 1) {
			Iterator<Learnt> oldest = history.iterator();
			oldest.next();
			if (!learntBefore(oldest.next(), position)) {
				return;
			}
			history.removeFirst();
		}
	}

	/**
	 * Returns the shape to keep after a Relation message: a column's nullability that the
	 * catalog could not vouch for (with DDL events, or a column the catalog disagrees on)
	 * stays what it was, as the steps have it. The catalog may be ahead of the stream:
	 * read after a later {@code SET NOT NULL} committed, its answer would otherwise
	 * become the known shape, and that DDL's own message would then find nothing changed.
	 */
	private static TrackedShape settled(TrackedShape known, TrackedShape next, List<SchemaChange> steps) {
		List<TableSchema.Column> columns;
		boolean[] vouched = next.nullabilityKnown().clone();
		if (steps.isEmpty()) {
			// The same columns in the same order.
			columns = new ArrayList<>(next.columns());
			for (int i = 0; i < columns.size() && i < known.columns().size(); i++) {
				if (!vouched[i]) {
					TableSchema.Column column = columns.get(i);
					columns.set(i, new TableSchema.Column(column.name(), column.typeOid(), column.typeName(),
							known.columns().get(i).nullable(), column.key()));
					vouched[i] = known.nullabilityKnown()[i];
				}
			}
		}
		else {
			TableSchema after = steps.get(steps.size() - 1).after();
			if (after == null || after.columns().size() != next.columns().size()) {
				return next;
			}
			columns = after.columns();
		}
		return new TrackedShape(new TableSchema(next.schema().table(), columns), next.attnums(), next.typeModifiers(),
				vouched, next.lsn());
	}

	/** Whether a shape was learnt before a position, or outside a transaction. */
	private static boolean learntBefore(Learnt learnt, Lsn position) {
		return learnt.lsn() == null || learnt.lsn().isBefore(position);
	}

	/**
	 * Reads a Relation message with what the catalog says of it. Where the catalog cannot
	 * name the types (the table is gone, or its columns are no longer the message's: the
	 * catalog is ahead of the stream), a column keeps the type name it is known by when
	 * its name, type OID and modifier are the same; else its name is the OID in decimal.
	 * A name the catalog could not give must not read as a type change. Likewise a column
	 * the catalog no longer has as the message has it keeps its known attribute number: a
	 * Relation sent again (pgoutput does after a relcache invalidation of the table and
	 * in every new session) and decoded after a later
	 * {@code DROP COLUMN ..., ADD COLUMN ...} committed must not make that DDL read as a
	 * rename.
	 */
	private TrackedShape read(PgOutputMessage.Relation relation, @Nullable Lsn commitLsn,
			@Nullable TrackedShape known) {
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
			attnums[i] = agrees ? attribute.attnum() : knownAttnum(known, column);
			modifiers[i] = column.typeModifier();
			nullabilityKnown[i] = agrees && !this.ddlEvents;
			String typeName = (live != null && live.typeNames().size() == size) ? live.typeNames().get(i)
					: knownTypeName(known, column);
			schema.add(new TableSchema.Column(column.name(), column.typeOid(), typeName,
					!agrees || !attribute.notNull(), column.isKey()));
		}
		TableId table = new TableId(relation.namespace(), relation.relationName());
		return new TrackedShape(new TableSchema(table, schema), attnums, modifiers, nullabilityKnown, commitLsn);
	}

	private static String knownTypeName(@Nullable TrackedShape known, PgOutputMessage.Column column) {
		int k = knownIndex(known, column);
		return (known != null && k >= 0) ? known.columns().get(k).typeName()
				: Integer.toUnsignedString(column.typeOid());
	}

	/** The known attribute number of the same column, 0 if none is known. */
	private static int knownAttnum(@Nullable TrackedShape known, PgOutputMessage.Column column) {
		int k = knownIndex(known, column);
		return (known != null && k >= 0) ? known.attnums()[k] : 0;
	}

	/** The known column of the same name, type OID and modifier, or -1. */
	private static int knownIndex(@Nullable TrackedShape known, PgOutputMessage.Column column) {
		if (known != null) {
			for (int k = 0; k < known.columns().size(); k++) {
				TableSchema.Column was = known.columns().get(k);
				if (was.name().equals(column.name()) && was.typeOid() == column.typeOid()
						&& known.typeModifiers()[k] == column.typeModifier()) {
					return k;
				}
			}
		}
		return -1;
	}

	/**
	 * A shape a table took.
	 *
	 * @param shape the shape, {@code null} once the table was dropped
	 * @param lsn the commit LSN it was learnt at, {@code null} outside a transaction
	 * @param text the shape as a checkpoint store keeps it, {@code null} once dropped
	 */
	private record Learnt(@Nullable TrackedShape shape, @Nullable Lsn lsn, @Nullable String text) {
	}

}
