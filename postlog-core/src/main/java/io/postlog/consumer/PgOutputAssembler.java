package io.postlog.consumer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Operation;
import io.postlog.ReplicationConsumerException;
import io.postlog.Row;
import io.postlog.SchemaChange;
import io.postlog.TableId;
import io.postlog.consumer.delivery.Event;
import io.postlog.decoder.StreamDecoder;
import io.postlog.pgoutput.PgOutputDecoder;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.pgoutput.TupleData;
import io.postlog.schema.DdlEvents;
import io.postlog.schema.SchemaTracker;
import io.postlog.snapshot.BackfillTable;
import org.jspecify.annotations.Nullable;

/**
 * Assembles pgoutput protocol version 1 messages into events: numbers each transaction's
 * changes from 0, gives them the transaction's commit LSN and time and their dedupe id,
 * and keeps the relations and the types the stream announces through a
 * {@link RowDecoder}. pgoutput's payloads it decodes itself, one message each, straight
 * into the payload's bytes; another plugin's go through that plugin's
 * {@link StreamDecoder}, which yields the same messages, so that its changes are the
 * same. Messages of later protocol versions (streamed and two-phase transactions) are
 * refused with a clear error, never misread. One per stream; not thread-safe.
 */
final class PgOutputAssembler implements MessageAssembler {

	private final String slotName;

	private final RowDecoder rows;

	private final boolean routing;

	private final @Nullable StreamDecoder plugin;

	/** Tracks the tables' shapes when a subscription takes schema changes, else null. */
	private @Nullable SchemaTracker schemas;

	private int schemaChanges;

	/**
	 * The shapes of the backfill chunks whose high watermark an event is, when backfills
	 * are on and shapes are tracked, else null.
	 */
	private @Nullable Function<Event, List<BackfillTable.ReadShape>> backfillShapes;

	private PgOutputMessage.@Nullable Begin open;

	private @Nullable String origin;

	private int index;

	/**
	 * {@link Change#id} up to the index, the same for every change of the open
	 * transaction.
	 */
	private String idPrefix = "";

	/**
	 * Creates an assembler of pgoutput's payloads.
	 * @param slotName the slot, for change ids
	 * @param rows the row decoder
	 * @param routing whether to compute the lane routing keys of changes
	 */
	PgOutputAssembler(String slotName, RowDecoder rows, boolean routing) {
		this(slotName, rows, routing, null);
	}

	/**
	 * Creates an assembler.
	 * @param slotName the slot, for change ids
	 * @param rows the row decoder
	 * @param routing whether to compute the lane routing keys of changes (only
	 * subscriptions with concurrency above 1 need them)
	 * @param plugin the stream decoder of a plugin other than pgoutput, or {@code null}
	 * for pgoutput
	 */
	PgOutputAssembler(String slotName, RowDecoder rows, boolean routing, @Nullable StreamDecoder plugin) {
		this.slotName = slotName;
		this.rows = rows;
		this.routing = routing;
		this.plugin = plugin;
	}

	@Override
	public boolean inTransaction() {
		return this.open != null;
	}

	@Override
	public List<Event> assemble(ByteBuffer payload) {
		int bytes = payload.remaining();
		StreamDecoder decoder = this.plugin;
		if (decoder == null) {
			// The values are decoded before this returns, so the message may point into
			// the payload's array instead of copying out of it.
			return assemble(PgOutputDecoder.decodeRetaining(payload, false), bytes);
		}
		List<PgOutputMessage> messages = decoder.decode(payload);
		if (messages.size() == 1) {
			return assemble(messages.get(0), bytes);
		}
		List<Event> events = new ArrayList<>(messages.size());
		for (int i = 0; i < messages.size(); i++) {
			// The payload's size is counted once, with its first message.
			events.addAll(assemble(messages.get(i), (i == 0) ? bytes : 0));
		}
		return events;
	}

	private List<Event> assemble(PgOutputMessage message, int bytes) {
		if (message instanceof PgOutputMessage.Begin begin) {
			this.open = begin;
			this.origin = null;
			this.index = 0;
			this.schemaChanges = 0;
			this.idPrefix = Change.id(this.slotName, begin.finalLsn(), 0);
			this.idPrefix = this.idPrefix.substring(0, this.idPrefix.length() - 1);
			return List.of(new Event.Begin(begin.xid(), begin.finalLsn(), begin.commitTime(), bytes));
		}
		if (message instanceof PgOutputMessage.Commit commit) {
			PgOutputMessage.Begin begin = requireOpen("Commit");
			this.open = null;
			return List.of(new Event.Commit(begin.xid(), commit.commitLsn(), commit.endLsn(), commit.commitTime(),
					this.origin, this.index, bytes));
		}
		if (message instanceof PgOutputMessage.Origin origin) {
			this.origin = origin.name();
			return List.of();
		}
		if (message instanceof PgOutputMessage.Relation relation) {
			this.rows.relation(relation);
			return (this.schemas != null) ? schemaChanges(this.schemas, relation, bytes) : List.of();
		}
		if (message instanceof PgOutputMessage.Type type) {
			// Resolved by OID through the catalog first; the announcement keeps a domain
			// dropped since decoding as its base type.
			this.rows.type(type);
			return List.of();
		}
		if (message instanceof PgOutputMessage.Insert insert) {
			int relationId = insert.relationId();
			int route = route(relationId, insert.newTuple());
			return change(Operation.INSERT, relationId, null, this.rows.newRow(relationId, insert.newTuple()), route,
					route, bytes);
		}
		if (message instanceof PgOutputMessage.Update update) {
			int relationId = update.relationId();
			Row before = oldRow(relationId, update.keyTuple(), update.oldTuple());
			int route = route(relationId, update.newTuple());
			int previousRoute = (update.keyTuple() != null) ? route(relationId, update.keyTuple()) : route;
			return change(Operation.UPDATE, relationId, before, this.rows.newRow(relationId, update.newTuple()), route,
					previousRoute, bytes);
		}
		if (message instanceof PgOutputMessage.Delete delete) {
			int relationId = delete.relationId();
			TupleData old = (delete.keyTuple() != null) ? delete.keyTuple() : delete.oldTuple();
			int route = (old != null) ? route(relationId, old) : 0;
			return change(Operation.DELETE, relationId, oldRow(relationId, delete.keyTuple(), delete.oldTuple()), null,
					route, route, bytes);
		}
		if (message instanceof PgOutputMessage.Truncate truncate) {
			List<Event> events = new ArrayList<>(truncate.relationIds().size());
			for (int relationId : truncate.relationIds()) {
				int route = this.routing ? this.rows.table(relationId).hashCode() : 0;
				events.addAll(change(Operation.TRUNCATE, relationId, null, null, route, route, bytes));
			}
			return events;
		}
		if (message instanceof PgOutputMessage.Message logical) {
			if (logical.transactional()) {
				PgOutputMessage.Begin begin = requireOpen("transactional Message");
				if (this.schemas != null && this.schemas.ddlEvents() && DdlEvents.PREFIX.equals(logical.prefix())) {
					return schemaChanges(this.schemas.ddl(logical.content(), begin.finalLsn()), bytes);
				}
			}
			return backfillShapes(new Event.MessageArrived(
					new LogicalMessage(logical.prefix(), logical.content(), logical.transactional(), logical.lsn()),
					bytes));
		}
		throw new ReplicationConsumerException("The stream sent a " + message.getClass().getSimpleName()
				+ " message, which belongs to pgoutput protocol version 2 or later (streamed or two-phase "
				+ "transactions); this consumer streams with protocol version 1 and does not handle it");
	}

	/**
	 * Has Relation messages compared with the tables' last known shapes, so that schema
	 * changes come as events before the first change in the new shape.
	 * @param schemas the consumer's tracker
	 * @return this assembler
	 */
	PgOutputAssembler trackingSchemas(SchemaTracker schemas) {
		this.schemas = schemas;
		return this;
	}

	/**
	 * Has the shape each backfill chunk was read in compared with the table's last known
	 * shape at the chunk's high watermark, so that a shape the stream did not show yet is
	 * announced in the watermark's transaction, before the chunk's rows (which follow its
	 * commit). Only with {@link #trackingSchemas}.
	 * @param shapes the shapes of the chunks whose high watermark an event is
	 * @return this assembler
	 */
	PgOutputAssembler trackingBackfillShapes(Function<Event, List<BackfillTable.ReadShape>> shapes) {
		this.backfillShapes = shapes;
		return this;
	}

	/**
	 * Puts the schema changes of the shapes backfill chunks were read in before the event
	 * that is their high watermark.
	 */
	private List<Event> backfillShapes(Event event) {
		Function<Event, List<BackfillTable.ReadShape>> shapes = this.backfillShapes;
		SchemaTracker tracker = this.schemas;
		PgOutputMessage.Begin begin = this.open;
		if (shapes == null || tracker == null || begin == null) {
			return List.of(event);
		}
		List<BackfillTable.ReadShape> read = shapes.apply(event);
		if (read.isEmpty()) {
			return List.of(event);
		}
		List<SchemaChange> changes = new ArrayList<>();
		for (BackfillTable.ReadShape shape : read) {
			changes.addAll(tracker.backfillRead(shape.relation(), shape.plannedAt(), begin.finalLsn()));
		}
		List<Event> events = new ArrayList<>(schemaChanges(changes, 0));
		events.add(event);
		return events;
	}

	private List<Event> schemaChanges(SchemaTracker schemas, PgOutputMessage.Relation relation, int bytes) {
		PgOutputMessage.Begin begin = this.open;
		return schemaChanges(schemas.relation(relation, (begin != null) ? begin.finalLsn() : null), bytes);
	}

	private List<Event> schemaChanges(List<SchemaChange> changes, int bytes) {
		if (changes.isEmpty()) {
			return List.of();
		}
		List<Event> events = new ArrayList<>(changes.size());
		for (SchemaChange change : changes) {
			events.add(new Event.SchemaChanged(change, this.schemaChanges++, events.isEmpty() ? bytes : 0));
		}
		return events;
	}

	private @Nullable Row oldRow(int relationId, @Nullable TupleData keyTuple, @Nullable TupleData oldTuple) {
		if (keyTuple != null) {
			return this.rows.oldRow(relationId, keyTuple, true);
		}
		return (oldTuple != null) ? this.rows.oldRow(relationId, oldTuple, false) : null;
	}

	private int route(int relationId, TupleData tuple) {
		return this.routing ? this.rows.keyHash(relationId, tuple) : 0;
	}

	private List<Event> change(Operation operation, int relationId, @Nullable Row before, @Nullable Row after,
			int route, int previousRoute, int bytes) {
		PgOutputMessage.Begin begin = requireOpen(operation.name());
		TableId table = this.rows.table(relationId);
		int changeIndex = this.index++;
		Change change = new Change(operation, table, before, after, begin.xid(), begin.finalLsn(), begin.commitTime(),
				changeIndex, this.idPrefix + changeIndex);
		return backfillShapes(new Event.ChangeArrived(change, route, previousRoute, bytes));
	}

	private PgOutputMessage.Begin requireOpen(String what) {
		PgOutputMessage.Begin begin = this.open;
		if (begin == null) {
			throw new ReplicationConsumerException("The stream sent " + what + " outside a transaction");
		}
		return begin;
	}

}
