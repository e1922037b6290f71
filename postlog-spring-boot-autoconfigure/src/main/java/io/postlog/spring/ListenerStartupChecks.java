package io.postlog.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import javax.sql.DataSource;

import io.postlog.Operation;
import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PgIdentifiers;
import io.postlog.admin.PublicationMode;
import io.postlog.decoder.DecoderCatalog;
import io.postlog.decoder.DecoderRefusedException;
import io.postlog.decoder.LogicalDecoder;
import io.postlog.decoder.TableSelection;

/**
 * Checks a group's tables against the catalog before its slot or publication is touched:
 * every table exists; one the publication will not publish (an existing publication that
 * postlog is not to change) is refused; one postlog is to add to the publication is owned
 * by the application's role; one postlog is to publish for updates and deletes has a
 * usable replica identity (one the publication holds already is only warned about, by the
 * consumer's start-up checks); and record listeners bind strictly from its columns. With
 * a decoder that does not read publications, a table it does not stream (not in
 * wal2json's list, not in pglogical's replication sets) is refused instead, and the
 * decoder itself checks replica identities at start. Each fault is a typed exception
 * naming the listener and the table, for a failure analysis.
 */
final class ListenerStartupChecks {

	private final DataSource dataSource;

	ListenerStartupChecks(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	void check(PostlogConsumerGroup group, PostlogListenerRegistry.GroupPlan plan) {
		try (Connection connection = this.dataSource.getConnection()) {
			check(new TableCatalog(connection), group, plan, connection);
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not check the tables of postlog group '" + group.displayName()
					+ "' against the catalog (SQLState " + PgErrors.sqlState(ex) + ")", ex);
		}
	}

	private void check(TableCatalog catalog, PostlogConsumerGroup group, PostlogListenerRegistry.GroupPlan plan,
			Connection connection) throws SQLException {
		LogicalDecoder decoder = plan.decoder();
		if (!(decoder.tableSelection() instanceof TableSelection.Publications)) {
			List<TableId> streamed = streamedTables(decoder, connection);
			for (TableId id : tables(group, plan)) {
				TableCatalog.Table table = catalog.table(id);
				if (table == null) {
					throw new ListenerTableNotFoundException(readers(group, id), id);
				}
				if (!streamed.contains(id)) {
					throw new DecoderRefusedException(decoder.name(),
							ListenerTableNotFoundException.capitalized(readers(group, id)) + " reads table " + id
									+ ", which " + describe(decoder)
									+ " does not hold, so no change of it would arrive");
				}
				checkBinding(group, table);
			}
			return;
		}
		String publicationName = plan.monitor().publicationName();
		TableCatalog.Publication publication = catalog.publication(publicationName);
		PublicationMode mode = plan.publicationMode();
		if (publication == null && mode == PublicationMode.EXISTING) {
			// The consumer's set-up reports the missing publication itself.
			return;
		}
		for (TableId id : tables(group, plan)) {
			String readers = readers(group, id);
			TableCatalog.Table table = catalog.table(id);
			if (table == null) {
				throw new ListenerTableNotFoundException(readers, id);
			}
			boolean published = publication != null && publication.publishes(id);
			if (!published && publication != null && mode != PublicationMode.SYNC) {
				throw new TableNotPublishedException(readers, id, publicationName);
			}
			if (!published && !table.owned()) {
				throw new TableNotOwnedException(id, table.owner(), table.role(), publicationName);
			}
			// Only a table postlog would publish itself is refused; one the publication
			// holds already streams, with a warning from the consumer's start-up checks.
			boolean updatesOrDeletes = publication == null || publication.updatesOrDeletes();
			if (!published && updatesOrDeletes && !table.hasUsableIdentity()) {
				throw new ReplicaIdentityMissingException(readers, id, table.identityDescription());
			}
			checkBinding(group, table);
		}
	}

	private static List<TableId> streamedTables(LogicalDecoder decoder, Connection connection) {
		TableSelection selection = decoder.tableSelection();
		if (selection instanceof TableSelection.ReplicationSets sets) {
			return DecoderCatalog.borrowing(connection).replicationSetTables(sets.names());
		}
		return ((TableSelection.Tables) selection).tables();
	}

	private static String describe(LogicalDecoder decoder) {
		TableSelection selection = decoder.tableSelection();
		if (selection instanceof TableSelection.ReplicationSets sets) {
			return "pglogical replication sets " + sets.names() + " (add it with "
					+ "pglogical.replication_set_add_table)";
		}
		return "the table list postlog.tables";
	}

	private static void checkBinding(PostlogConsumerGroup group, TableCatalog.Table table) {
		for (ListenerEndpoint endpoint : group.endpoints()) {
			if (endpoint.toast().policy() == ToastPolicy.REQUIRE_FULL && reads(endpoint, table.id())
					&& !table.fullIdentity()) {
				throw new PostlogException("Listener '" + endpoint.id() + "' has toast = REQUIRE_FULL, which takes "
						+ "unchanged TOASTed values from the whole old row, but table " + table.id() + " has "
						+ identity(table) + ", whose old rows hold the key only; run ALTER TABLE "
						+ PgIdentifiers.quote(table.id()) + " REPLICA IDENTITY FULL, or choose another toast policy");
			}
			if (endpoint.toast().policy() == ToastPolicy.RESELECT && reads(endpoint, table.id())
					&& table.key().isEmpty() && !table.fullIdentity()) {
				throw new PostlogException("Listener '" + endpoint.id() + "' has toast = RESELECT, which reads a row "
						+ "again by its key, but table " + table.id() + " has " + table.identityDescription());
			}
			if (endpoint.invoker() instanceof RecordInvoker records && reads(endpoint, table.id())) {
				List<String> deleteImage = (endpoint.operations().contains(Operation.DELETE) && !table.fullIdentity())
						? table.key() : null;
				records.binder().check(endpoint.id(), table.id(), table.columns(), deleteImage);
			}
		}
	}

	private static String identity(TableCatalog.Table table) {
		return switch (table.identity()) {
			case 'n' -> "REPLICA IDENTITY NOTHING";
			case 'i' -> "REPLICA IDENTITY USING INDEX";
			default -> "REPLICA IDENTITY DEFAULT";
		};
	}

	/**
	 * The tables to check: those the group publishes when they are named, and those its
	 * listeners name.
	 */
	private static Set<TableId> tables(PostlogConsumerGroup group, PostlogListenerRegistry.GroupPlan plan) {
		Set<TableId> tables = new LinkedHashSet<>(plan.publishedTables());
		for (ListenerEndpoint endpoint : group.endpoints()) {
			tables.addAll(endpoint.tables());
		}
		return tables;
	}

	private static boolean reads(ListenerEndpoint endpoint, TableId table) {
		return endpoint.shape().readsRows() && (endpoint.tables().isEmpty() || endpoint.tables().contains(table));
	}

	private static String readers(PostlogConsumerGroup group, TableId table) {
		List<String> ids = new ArrayList<>();
		for (ListenerEndpoint endpoint : group.endpoints()) {
			if (endpoint.tables().contains(table)) {
				ids.add("'" + endpoint.id() + "'");
			}
		}
		if (ids.isEmpty()) {
			return "postlog.tables";
		}
		return ((ids.size() == 1) ? "listener " : "listeners ") + String.join(", ", ids);
	}

}
