package io.postlog.consumer;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

import io.postlog.TableId;
import io.postlog.admin.CatalogTable;
import io.postlog.admin.TableCatalog;
import io.postlog.decoder.DecoderCatalog;

/**
 * A {@link DecoderCatalog} on the consumer's admin connections, so that a decoder's
 * questions share their lock (a connection the caller supplied) or their pool.
 * Thread-safe.
 */
final class AdminDecoderCatalog implements DecoderCatalog {

	private final AdminConnections admin;

	AdminDecoderCatalog(AdminConnections admin) {
		this.admin = admin;
	}

	@Override
	public List<CatalogTable> tables(Collection<TableId> tables) {
		return this.admin.apply("Reading tables " + tables + " from the catalog",
				(connection) -> new TableCatalog(connection).tables(tables));
	}

	@Override
	public Optional<CatalogTable> table(int relationOid) {
		return this.admin.apply("Reading relation OID " + Integer.toUnsignedString(relationOid) + " from the catalog",
				(connection) -> new TableCatalog(connection).table(relationOid));
	}

	@Override
	public Optional<String> originName(int originId) {
		return this.admin.apply("Reading replication origin " + originId + " from the catalog",
				(connection) -> new TableCatalog(connection).originName(originId));
	}

	@Override
	public List<TableId> replicationSetTables(Collection<String> replicationSets) {
		return this.admin.apply("Reading the tables of pglogical replication sets " + replicationSets,
				(connection) -> new TableCatalog(connection).replicationSetTables(replicationSets));
	}

}
