package io.postlog.decoder;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.postlog.TableId;
import io.postlog.admin.CatalogColumn;
import io.postlog.admin.CatalogTable;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.pgoutput.TupleData;
import io.postlog.pgoutput.TupleValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one stream of {@code pglogical_output} messages into pgoutput's. The startup
 * message must come first and confirm protocol version 1, UTF-8 and text values.
 * pglogical's relations carry column names and which belong to the replica identity
 * index, but no types and no replica identity setting: both come from the catalog by the
 * relation's OID, matched by column name, when the relation arrives. Under
 * {@code REPLICA IDENTITY FULL} pglogical sends the whole old row as its key
 * ({@code 'K'}); it is passed on as pgoutput's old row ({@code 'O'}), with every column a
 * key column, as pgoutput marks them. Generated columns, which pgoutput does not publish,
 * are left out. Not thread-safe: one per stream.
 */
final class PgLogicalTranslator implements StreamDecoder {

	private static final Logger logger = LoggerFactory.getLogger(PgLogicalTranslator.class);

	private static final String PLUGIN = "pglogical_output";

	private final DecoderCatalog catalog;

	private final Map<Integer, Layout> relations = new HashMap<>();

	private boolean started;

	private boolean open;

	PgLogicalTranslator(DecoderCatalog catalog) {
		this.catalog = catalog;
	}

	@Override
	public List<PgOutputMessage> decode(ByteBuffer payload) {
		PgLogicalMessage message = PgLogicalWireDecoder.decode(payload);
		if (message instanceof PgLogicalMessage.Startup startup) {
			startup(startup);
			return List.of();
		}
		if (!this.started) {
			throw error("stream", "the first message was not the startup message");
		}
		if (message instanceof PgLogicalMessage.Begin begin) {
			if (this.open) {
				throw error("Begin", "a transaction began inside another");
			}
			this.open = true;
			return List.of(new PgOutputMessage.Begin(begin.finalLsn(), begin.commitTime(), begin.xid()));
		}
		if (message instanceof PgLogicalMessage.Commit commit) {
			requireOpen("Commit");
			if (!commit.commitLsn().isValid()) {
				throw error("Commit", "a commit without its LSN");
			}
			this.open = false;
			return List.of(new PgOutputMessage.Commit(0, commit.commitLsn(), commit.endLsn(), commit.commitTime()));
		}
		if (message instanceof PgLogicalMessage.Origin origin) {
			requireOpen("Origin");
			return List.of(new PgOutputMessage.Origin(origin.originLsn(), origin.name()));
		}
		if (message instanceof PgLogicalMessage.Relation relation) {
			Layout layout = layout(relation);
			this.relations.put(relation.relationId(), layout);
			return List.of(layout.relation);
		}
		requireOpen("change");
		if (message instanceof PgLogicalMessage.Insert insert) {
			Layout layout = layout(insert.relationId());
			return List.of(new PgOutputMessage.Insert(null, insert.relationId(), layout.published(insert.newTuple())));
		}
		if (message instanceof PgLogicalMessage.Update update) {
			Layout layout = layout(update.relationId());
			TupleData old = (update.oldTuple() != null) ? layout.published(update.oldTuple()) : null;
			TupleData newTuple = layout.published(update.newTuple());
			boolean full = layout.relation.replicaIdentity() == 'f';
			return List.of(new PgOutputMessage.Update(null, update.relationId(), full ? null : old, full ? old : null,
					newTuple));
		}
		PgLogicalMessage.Delete delete = (PgLogicalMessage.Delete) message;
		Layout layout = layout(delete.relationId());
		TupleData old = layout.published(delete.oldTuple());
		boolean full = layout.relation.replicaIdentity() == 'f';
		return List.of(new PgOutputMessage.Delete(null, delete.relationId(), full ? null : old, full ? old : null));
	}

	/** The startup message confirms what was asked for; anything else is refused. */
	private void startup(PgLogicalMessage.Startup startup) {
		if (this.started) {
			throw error("Startup", "a second startup message");
		}
		Map<String, String> parameters = startup.parameters();
		require(parameters, "max_proto_version", "1");
		require(parameters, "min_proto_version", "1");
		require(parameters, "encoding", "UTF8");
		require(parameters, "binary.internal_basetypes", "f");
		require(parameters, "binary.binary_basetypes", "f");
		this.started = true;
	}

	private static void require(Map<String, String> parameters, String name, String expected) {
		String value = parameters.get(name);
		if (!expected.equals(value)) {
			throw new DecoderRefusedException("pglogical",
					"the plugin's startup message has " + name + " = " + ((value != null) ? value : "(none)")
							+ " where this decoder needs " + expected + " (pglogical_output protocol version 1, "
							+ "UTF8, text values)");
		}
	}

	/**
	 * Types and the replica identity come from the catalog; a column the catalog does not
	 * have (dropped or renamed since the change) is typed 0 and decodes raw.
	 */
	private Layout layout(PgLogicalMessage.Relation relation) {
		Optional<CatalogTable> known = this.catalog.table(relation.relationId());
		TableId table = new TableId(relation.namespace(), relation.relationName());
		if (known.isEmpty() || !known.get().table().equals(table)) {
			logger.warn("pglogical sent relation {} (OID {}), which the catalog does not have under that name: its "
					+ "values are delivered raw", table, Integer.toUnsignedString(relation.relationId()));
		}
		Map<String, CatalogColumn> byName = new HashMap<>();
		known.ifPresent((definition) -> definition.columns().forEach((c) -> byName.put(c.name(), c)));
		char replicaIdentity = known.map(CatalogTable::replicaIdentity).orElse('d');
		List<Column> columns = new ArrayList<>();
		boolean[] publish = new boolean[relation.columns().size()];
		for (int i = 0; i < publish.length; i++) {
			PgLogicalMessage.Attribute attribute = relation.columns().get(i);
			CatalogColumn column = byName.get(attribute.name());
			publish[i] = column == null || !column.generated();
			if (publish[i]) {
				boolean key = replicaIdentity == 'f' || (attribute.flags() & 1) != 0;
				columns.add(new Column(key ? 1 : 0, attribute.name(), (column != null) ? column.typeOid() : 0,
						(column != null) ? column.typeModifier() : -1));
			}
		}
		return new Layout(new PgOutputMessage.Relation(null, relation.relationId(), relation.namespace(),
				relation.relationName(), replicaIdentity, columns), publish);
	}

	private Layout layout(int relationId) {
		Layout layout = this.relations.get(relationId);
		if (layout == null) {
			throw error("change",
					"a change of relation " + Integer.toUnsignedString(relationId) + " before its relation message");
		}
		return layout;
	}

	private void requireOpen(String what) {
		if (!this.open) {
			throw error(what, "outside a transaction");
		}
	}

	private static PluginDecodingException error(String what, String reason) {
		return new PluginDecodingException(PLUGIN, what, -1, reason);
	}

	/** A relation as passed on, and which of pglogical's columns it keeps. */
	private static final class Layout {

		final PgOutputMessage.Relation relation;

		private final boolean[] publish;

		Layout(PgOutputMessage.Relation relation, boolean[] publish) {
			this.relation = relation;
			this.publish = publish;
		}

		TupleData published(TupleData tuple) {
			if (tuple.size() != this.publish.length) {
				throw error("tuple", "a tuple of " + tuple.size() + " columns for relation " + this.relation.namespace()
						+ "." + this.relation.relationName() + " of " + this.publish.length);
			}
			if (this.publish.length == this.relation.columns().size()) {
				return tuple;
			}
			List<TupleValue> values = new ArrayList<>(this.relation.columns().size());
			for (int i = 0; i < this.publish.length; i++) {
				if (this.publish[i]) {
					values.add(tuple.get(i));
				}
			}
			return new TupleData(values);
		}

	}

}
