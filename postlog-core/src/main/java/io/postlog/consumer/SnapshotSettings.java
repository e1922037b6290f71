package io.postlog.consumer;

import java.util.Objects;

import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.snapshot.SnapshotConnections;
import io.postlog.snapshot.SnapshotOptions;
import io.postlog.stream.ReplicationConnectionFactory;

/**
 * How a consumer takes its initial snapshot, checked when the consumer is built.
 *
 * @param options how the tables are read: parallelism, chunk size, binary or text, the
 * publication whose column lists and row filters apply
 * @param markerTable where PostgreSQL 10 and 11 record that a snapshot completed
 * @param replication opens the fresh replication connection that creates the slot and
 * exports its snapshot
 * @param readers opens the ordinary connections the tables are read on
 */
record SnapshotSettings(SnapshotOptions options, TableId markerTable, ReplicationConnectionFactory replication,
		SnapshotConnections readers) {

	SnapshotSettings {
		Objects.requireNonNull(options, "options");
		PgIdentifiers.requireName("schema", markerTable.schema());
		PgIdentifiers.requireName("table", markerTable.name());
		Objects.requireNonNull(replication, "replication");
		Objects.requireNonNull(readers, "readers");
	}

}
