package io.postlog.decoder;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import io.postlog.TableId;
import io.postlog.admin.CatalogTable;
import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.PgIdentifiers;

/**
 * pglogical's output plugin, {@code pglogical_output} (pglogical 2.x), in its native
 * protocol, version 1, with text values, reading the tables of replication sets of the
 * local pglogical node. The database needs the {@code pglogical} extension, a node
 * ({@code pglogical.create_node}) and the sets; postlog creates none of them.
 * <p>
 * What pglogical cannot do is refused at start: logical decoding messages (it has no
 * message callback), streaming of in-progress transactions, binary values (postlog reads
 * its text values only). It sends no {@code TRUNCATE}: pglogical replicates those through
 * its queue table, whose rows arrive as inserts into {@code pglogical.queue} when that
 * table is in a set. Transactions from every origin are forwarded
 * ({@code pglogical.forward_origins = all}), as pgoutput does. Immutable and thread-safe.
 */
public final class PgLogicalDecoder implements LogicalDecoder {

	private static final String NAME = "pglogical";

	private static final DecoderCapabilities CAPABILITIES = new DecoderCapabilities(false, false, false, false,
			ServerVersions.V9_6);

	private final TableSelection.ReplicationSets sets;

	private PgLogicalDecoder(TableSelection.ReplicationSets sets) {
		this.sets = sets;
	}

	/**
	 * Returns the decoder for replication sets.
	 * @param replicationSets the sets' names, at least one
	 * @return the decoder
	 * @throws InvalidIdentifierException if a name is not valid or holds a quote
	 */
	public static PgLogicalDecoder forReplicationSets(List<String> replicationSets) {
		if (replicationSets.isEmpty()) {
			throw new IllegalArgumentException("At least one pglogical replication set is required");
		}
		for (String name : replicationSets) {
			PgIdentifiers.requireName("replication set", name);
			if (name.indexOf('\'') >= 0 || name.indexOf('"') >= 0) {
				throw new InvalidIdentifierException("replication set", name,
						"quotes cannot be passed to pglogical.replication_set_names");
			}
		}
		return new PgLogicalDecoder(new TableSelection.ReplicationSets(replicationSets));
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public String plugin() {
		return "pglogical_output";
	}

	@Override
	public DecoderCapabilities capabilities() {
		return CAPABILITIES;
	}

	@Override
	public TableSelection tableSelection() {
		return this.sets;
	}

	@Override
	public DecoderRequest check(int serverVersion, DecoderRequest request, DecoderCatalog catalog) {
		if (serverVersion < CAPABILITIES.minServerVersion()) {
			throw new DecoderRefusedException(NAME, "postlog reads pglogical from PostgreSQL 9.6 on; the server is "
					+ "PostgreSQL " + ServerVersions.text(serverVersion));
		}
		if (request.messages()) {
			throw new DecoderRefusedException(NAME, "pglogical_output does not send logical decoding messages; "
					+ "use decoder pgoutput (PostgreSQL 14+) or wal2json for a message handler");
		}
		if (request.binary()) {
			throw new DecoderRefusedException(NAME,
					"postlog reads pglogical's values as text only; turn binary values off (postlog.binary=false)");
		}
		if (request.streaming()) {
			throw new DecoderRefusedException(NAME,
					"pglogical_output cannot stream in-progress transactions; use decoder pgoutput for that");
		}
		List<TableId> tables = catalog.replicationSetTables(this.sets.names());
		List<TableId> keyless = catalog.tables(tables)
			.stream()
			.filter((table) -> !table.hasReplicaIdentity())
			.map(CatalogTable::table)
			.toList();
		if (!keyless.isEmpty()) {
			throw new DecoderRefusedException(NAME, "tables " + keyless + " of replication sets " + this.sets.names()
					+ " have no replica identity, so their updates and deletes cannot name their row");
		}
		return request;
	}

	@Override
	public Map<String, String> startOptions(int serverVersion, DecoderRequest request) {
		Map<String, String> options = new LinkedHashMap<>();
		options.put("startup_params_format", "1");
		options.put("min_proto_version", "1");
		options.put("max_proto_version", "1");
		options.put("proto_format", "native");
		options.put("expected_encoding", "UTF8");
		options.put("pglogical.forward_origins", "all");
		StringJoiner sets = new StringJoiner(",");
		// Quoted, since pglogical splits the list as identifiers and folds unquoted ones.
		this.sets.names().forEach((name) -> sets.add("\"" + name + "\""));
		options.put("pglogical.replication_set_names", sets.toString());
		return options;
	}

	@Override
	public StreamDecoder newStream(int serverVersion, DecoderRequest request, DecoderCatalog catalog) {
		return new PgLogicalTranslator(catalog);
	}

}
