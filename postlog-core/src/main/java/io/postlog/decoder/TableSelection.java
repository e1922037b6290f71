package io.postlog.decoder;

import java.util.List;
import java.util.Objects;

import io.postlog.TableId;

/**
 * How a decoder's plugin chooses the tables whose changes it sends. Immutable.
 */
public sealed interface TableSelection {

	/**
	 * pgoutput: the tables of publications ({@code publication_names}).
	 *
	 * @param names the publications (copied)
	 */
	record Publications(List<String> names) implements TableSelection {

		/**
		 * Creates the selection.
		 * @param names the publications
		 */
		public Publications {
			names = List.copyOf(names);
		}

	}

	/**
	 * pglogical: the tables of replication sets of the local node
	 * ({@code pglogical.replication_set_names}).
	 *
	 * @param names the replication sets (copied)
	 */
	record ReplicationSets(List<String> names) implements TableSelection {

		/**
		 * Creates the selection.
		 * @param names the replication sets
		 */
		public ReplicationSets {
			names = List.copyOf(names);
		}

	}

	/**
	 * wal2json: a list of tables ({@code add-tables}).
	 *
	 * @param tables the tables (copied)
	 */
	record Tables(List<TableId> tables) implements TableSelection {

		/**
		 * Creates the selection.
		 * @param tables the tables
		 */
		public Tables {
			tables = List.copyOf(tables);
			tables.forEach((table) -> Objects.requireNonNull(table, "table"));
		}

	}

}
