package io.postlog.decoder;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.CatalogTable;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.TupleData;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one stream's wal2json documents into pgoutput's messages. wal2json sends no
 * relations, so they are synthesised: from the catalog (read for the configured tables
 * when the stream starts) where it agrees with the change's columns, else from the change
 * itself, and sent again whenever a change's columns differ from the last relation sent,
 * like pgoutput sends a relation before its first change and after it changes. A column
 * an update leaves out is an unchanged TOASTed value if its type is of variable length,
 * else a sign that the table changed. wal2json always sends an update's replica identity,
 * from the new row when the key did not change; like pgoutput, that gives no old image.
 * Not thread-safe: one per stream.
 */
final class Wal2JsonTranslator implements StreamDecoder {

	private static final Logger logger = LoggerFactory.getLogger(Wal2JsonTranslator.class);

	private static final String PLUGIN = "wal2json";

	/** Types below this OID are built in, and pgoutput announces none of them. */
	private static final int FIRST_NON_BUILTIN_OID = 10000;

	private final DecoderCatalog catalog;

	private final boolean messages;

	private final Map<TableId, Optional<CatalogTable>> tables = new HashMap<>();

	private final Map<TableId, Wal2JsonRelation> relations = new HashMap<>();

	private final Set<Integer> announced = new HashSet<>();

	private final Map<Long, Optional<String>> origins = new HashMap<>();

	private PgOutputMessage.@Nullable Begin open;

	/**
	 * Ids for tables the catalog does not know, counting down from the top of the OIDs.
	 */
	private int nextSyntheticId = -1;

	Wal2JsonTranslator(DecoderCatalog catalog, Collection<TableId> configured, boolean messages) {
		this.catalog = catalog;
		this.messages = messages;
		for (TableId table : configured) {
			this.tables.put(table, Optional.empty());
		}
		for (CatalogTable table : catalog.tables(configured)) {
			this.tables.put(table.table(), Optional.of(table));
		}
	}

	@Override
	public List<PgOutputMessage> decode(ByteBuffer payload) {
		byte[] document = new byte[payload.remaining()];
		payload.get(document);
		Wal2JsonMessage message = Wal2JsonParser.parse(document);
		if (message instanceof Wal2JsonMessage.Begin begin) {
			return begin(begin);
		}
		if (message instanceof Wal2JsonMessage.Commit commit) {
			return commit(commit);
		}
		if (message instanceof Wal2JsonMessage.Change change) {
			return change(change);
		}
		if (message instanceof Wal2JsonMessage.Truncate truncate) {
			requireOpen("truncate", truncate.xid());
			TableId table = new TableId(truncate.schema(), truncate.table());
			List<PgOutputMessage> out = new ArrayList<>();
			Wal2JsonRelation layout = this.relations.get(table);
			if (layout == null) {
				Optional<CatalogTable> known = catalogTable(table);
				layout = known.isPresent() ? Wal2JsonRelation.of(known.get(), generated(known))
						: Wal2JsonRelation.withoutColumns(syntheticId(), table);
				send(layout, out);
			}
			out.add(new PgOutputMessage.Truncate(null, 0, List.of(layout.relationId)));
			return out;
		}
		Wal2JsonMessage.Message logical = (Wal2JsonMessage.Message) message;
		if (logical.transactional()) {
			requireOpen("transactional message", logical.xid());
		}
		if (!this.messages) {
			return List.of();
		}
		return List.of(new PgOutputMessage.Message(null, logical.transactional(), required(logical.lsn(), "message"),
				logical.prefix(), logical.content()));
	}

	private List<PgOutputMessage> begin(Wal2JsonMessage.Begin begin) {
		if (this.open != null) {
			throw error("begin", "a transaction began inside another");
		}
		PgOutputMessage.Begin opened = new PgOutputMessage.Begin(required(begin.lsn(), "begin"),
				required(begin.timestamp(), "begin"), required(begin.xid(), "begin"));
		this.open = opened;
		Long origin = begin.origin();
		if (origin == null || origin == 0) {
			return List.of(opened);
		}
		Optional<String> name = this.origins.computeIfAbsent(origin, (id) -> this.catalog.originName((int) (long) id));
		if (name.isEmpty()) {
			if (this.origins.size() < 1000) {
				logger.warn("wal2json named replication origin {}, which the catalog no longer has: "
						+ "its transactions are delivered without an origin", origin);
			}
			return List.of(opened);
		}
		return List.of(opened, new PgOutputMessage.Origin(Lsn.INVALID, name.get()));
	}

	private List<PgOutputMessage> commit(Wal2JsonMessage.Commit commit) {
		PgOutputMessage.Begin begin = requireOpen("commit", commit.xid());
		if (commit.lsn() == null) {
			throw error("commit", "a commit without its LSN (the stream must have include-lsn)");
		}
		this.open = null;
		Lsn endLsn = required(commit.nextLsn(), "commit");
		return List.of(new PgOutputMessage.Commit(0, commit.lsn(), endLsn,
				(commit.timestamp() != null) ? commit.timestamp() : begin.commitTime()));
	}

	private List<PgOutputMessage> change(Wal2JsonMessage.Change change) {
		requireOpen("change", change.xid());
		TableId table = new TableId(change.schema(), change.table());
		Optional<CatalogTable> known = catalogTable(table);
		Set<String> generated = generated(known);
		List<Wal2JsonMessage.Column> columns = withoutGenerated(change.columns(), generated);
		List<Wal2JsonMessage.Column> identity = withoutGenerated(change.identity(), generated);
		List<PgOutputMessage> out = new ArrayList<>(3);
		Wal2JsonRelation.Fit fit = switch (change.action()) {
			case 'I' -> Wal2JsonRelation.Fit.WHOLE;
			case 'U' -> Wal2JsonRelation.Fit.UNCHANGED_TOAST;
			default -> Wal2JsonRelation.Fit.SUBSET;
		};
		Wal2JsonRelation layout = layout(table, known, generated, change, (columns != null) ? columns : identity, fit,
				out);
		int relationId = layout.relationId;
		switch (change.action()) {
			case 'I' -> out.add(new PgOutputMessage.Insert(null, relationId, layout.tuple(columns, false)));
			case 'U' -> {
				TupleData newTuple = layout.tuple(columns, true);
				TupleData keyTuple = null;
				TupleData oldTuple = null;
				if (layout.replicaIdentity == 'f') {
					oldTuple = layout.tuple(required(identity, "update"), true);
				}
				else if (identity != null && !layout.sameValues(identity, columns)) {
					keyTuple = layout.keyTuple(identity);
				}
				out.add(new PgOutputMessage.Update(null, relationId, keyTuple, oldTuple, newTuple));
			}
			default -> {
				List<Wal2JsonMessage.Column> old = required(identity, "delete");
				if (layout.replicaIdentity == 'f') {
					out.add(new PgOutputMessage.Delete(null, relationId, null, layout.tuple(old, true)));
				}
				else {
					out.add(new PgOutputMessage.Delete(null, relationId, layout.keyTuple(old), null));
				}
			}
		}
		return out;
	}

	/**
	 * The relation a change fits: the one sent last, else the catalog's, else one made of
	 * the change's own columns; a new one is sent before the change.
	 */
	private Wal2JsonRelation layout(TableId table, Optional<CatalogTable> known, Set<String> generated,
			Wal2JsonMessage.Change change, @Nullable List<Wal2JsonMessage.Column> sent, Wal2JsonRelation.Fit fit,
			List<PgOutputMessage> out) {
		List<Wal2JsonMessage.Column> columns = required(sent, "change");
		Wal2JsonRelation current = this.relations.get(table);
		if (current != null && current.fits(columns, fit)) {
			return current;
		}
		Wal2JsonRelation layout = known.map((definition) -> Wal2JsonRelation.of(definition, generated))
			.filter((candidate) -> candidate.fits(columns, fit))
			.orElse(null);
		if (layout == null) {
			layout = Wal2JsonRelation.synthesised(known.map(CatalogTable::relationOid).orElseGet(this::syntheticId),
					table, known, change, columns);
		}
		announce(columns, out);
		send(layout, out);
		return layout;
	}

	private void send(Wal2JsonRelation layout, List<PgOutputMessage> out) {
		this.relations.put(layout.table, layout);
		out.add(layout.relation());
	}

	/**
	 * Announces the types that are not built in as pgoutput does, by the base type
	 * wal2json names for a domain ({@code include-domain-data-type}), so that a domain
	 * the catalog no longer knows still decodes as its base type.
	 */
	private void announce(List<Wal2JsonMessage.Column> columns, List<PgOutputMessage> out) {
		for (Wal2JsonMessage.Column column : columns) {
			Integer oid = column.typeOid();
			if (oid == null || (oid >= 0 && oid < FIRST_NON_BUILTIN_OID) || column.type() == null
					|| this.announced.contains(oid)) {
				continue;
			}
			String name = FormatTypeNames.catalogName(column.type());
			if (name != null) {
				this.announced.add(oid);
				out.add(new PgOutputMessage.Type(null, oid, "", name));
			}
		}
	}

	private Optional<CatalogTable> catalogTable(TableId table) {
		return this.tables.computeIfAbsent(table, (key) -> this.catalog.tables(List.of(key)).stream().findFirst());
	}

	private static Set<String> generated(Optional<CatalogTable> known) {
		if (known.isEmpty()) {
			return Set.of();
		}
		Set<String> generated = new HashSet<>();
		known.get().columns().stream().filter((column) -> column.generated()).forEach((c) -> generated.add(c.name()));
		return generated;
	}

	/** pgoutput does not publish generated columns, which wal2json sends. */
	private static @Nullable List<Wal2JsonMessage.Column> withoutGenerated(
			@Nullable List<Wal2JsonMessage.Column> columns, Set<String> generated) {
		if (columns == null || generated.isEmpty()) {
			return columns;
		}
		return columns.stream().filter((column) -> !generated.contains(column.name())).toList();
	}

	private int syntheticId() {
		return this.nextSyntheticId--;
	}

	private PgOutputMessage.Begin requireOpen(String what, @Nullable Long xid) {
		PgOutputMessage.Begin begin = this.open;
		if (begin == null) {
			throw error(what, "outside a transaction");
		}
		if (xid != null && xid != begin.xid()) {
			throw error(what, "of transaction " + xid + " inside transaction " + begin.xid());
		}
		return begin;
	}

	private static <T> T required(@Nullable T value, String what) {
		if (value == null) {
			throw error(what, "a member the stream's options put in every " + what + " is missing");
		}
		return value;
	}

	static PluginDecodingException error(String what, String reason) {
		return new PluginDecodingException(PLUGIN, what, -1, reason);
	}

}
