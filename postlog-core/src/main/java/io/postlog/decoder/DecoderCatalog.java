package io.postlog.decoder;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.CatalogTable;
import io.postlog.admin.TableCatalog;

/**
 * The catalog facts a decoder needs and its plugin does not send: tables' columns, types
 * and replica identity (wal2json sends no relation messages, pglogical's carry neither
 * types nor the replica identity), replication origins' names (wal2json sends their ids)
 * and pglogical's replication sets. Implementations answer from the database as it is
 * now, which may be later than the change being decoded. Called from the thread that
 * decodes; implementations used by several streams at once must be thread-safe.
 */
public interface DecoderCatalog {

	/**
	 * Describes tables; the ones that do not exist are left out.
	 * @param tables the tables
	 * @return the tables found
	 */
	List<CatalogTable> tables(Collection<TableId> tables);

	/**
	 * Describes a table by its OID.
	 * @param relationOid the OID
	 * @return the table, or empty if there is none of that OID
	 */
	Optional<CatalogTable> table(int relationOid);

	/**
	 * Looks a replication origin's name up by its id.
	 * @param originId the id ({@code roident})
	 * @return the name, or empty if there is no such origin
	 */
	Optional<String> originName(int originId);

	/**
	 * Returns the tables of pglogical replication sets.
	 * @param replicationSets the sets
	 * @return their tables
	 * @throws PostlogException if pglogical or a set is missing
	 */
	List<TableId> replicationSetTables(Collection<String> replicationSets);

	/**
	 * Returns a catalog that asks {@link TableCatalog} on connections it opens for each
	 * question and closes after it. Thread-safe as far as the source is.
	 * @param connections opens a fresh ordinary connection to the database streamed from
	 * @return the catalog
	 */
	static DecoderCatalog opening(ConnectionSource connections) {
		return new JdbcDecoderCatalog(connections, true);
	}

	/**
	 * Returns a catalog that asks {@link TableCatalog} on one borrowed connection, never
	 * closed, under a lock.
	 * @param connection the connection
	 * @return the catalog
	 */
	static DecoderCatalog borrowing(Connection connection) {
		return new JdbcDecoderCatalog(() -> connection, false);
	}

	/**
	 * Opens a connection.
	 */
	@FunctionalInterface
	interface ConnectionSource {

		/**
		 * Opens a connection.
		 * @return the connection
		 * @throws SQLException if it cannot be opened
		 */
		Connection open() throws SQLException;

	}

}
