package io.postlog.decoder;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.CatalogTable;
import io.postlog.admin.TableCatalog;

/**
 * A {@link DecoderCatalog} over {@link TableCatalog}: on a fresh connection per question,
 * closed after it, or on one borrowed connection under a lock.
 */
final class JdbcDecoderCatalog implements DecoderCatalog {

	private final ConnectionSource connections;

	private final boolean close;

	JdbcDecoderCatalog(ConnectionSource connections, boolean close) {
		this.connections = connections;
		this.close = close;
	}

	@Override
	public List<CatalogTable> tables(Collection<TableId> tables) {
		return apply((catalog) -> catalog.tables(tables));
	}

	@Override
	public Optional<CatalogTable> table(int relationOid) {
		return apply((catalog) -> catalog.table(relationOid));
	}

	@Override
	public Optional<String> originName(int originId) {
		return apply((catalog) -> catalog.originName(originId));
	}

	@Override
	public List<TableId> replicationSetTables(Collection<String> replicationSets) {
		return apply((catalog) -> catalog.replicationSetTables(replicationSets));
	}

	private <T> T apply(Function<TableCatalog, T> question) {
		try {
			if (!this.close) {
				synchronized (this) {
					return question.apply(new TableCatalog(this.connections.open()));
				}
			}
			try (Connection connection = this.connections.open()) {
				return question.apply(new TableCatalog(connection));
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not open a connection to read the catalog", ex);
		}
	}

}
