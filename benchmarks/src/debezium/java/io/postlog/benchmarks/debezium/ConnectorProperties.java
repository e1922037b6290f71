package io.postlog.benchmarks.debezium;

import java.util.Properties;

import io.postlog.benchmarks.e2e.Tally;

/**
 * The properties of the Debezium PostgreSQL connector that both legs share: pgoutput on
 * the slot and the existing publication the arguments name ({@code host= port= user=
 * database= slot= publication=}), offsets in memory, no tombstones. Each leg adds its
 * snapshot mode and tables.
 */
final class ConnectorProperties {

	private ConnectorProperties() {
	}

	static Properties of(String[] args, String name, String offsetFlushIntervalMs) {
		Properties props = new Properties();
		props.setProperty("name", name);
		props.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
		props.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
		props.setProperty("offset.flush.interval.ms", offsetFlushIntervalMs);
		props.setProperty("database.hostname", Tally.arg(args, "host", "127.0.0.1"));
		props.setProperty("database.port", Tally.arg(args, "port", null));
		props.setProperty("database.user", Tally.arg(args, "user", "postgres"));
		props.setProperty("database.password", "unused");
		props.setProperty("database.dbname", Tally.arg(args, "database", null));
		props.setProperty("topic.prefix", "bench");
		props.setProperty("plugin.name", "pgoutput");
		props.setProperty("slot.name", Tally.arg(args, "slot", null));
		props.setProperty("publication.name", Tally.arg(args, "publication", null));
		props.setProperty("publication.autocreate.mode", "disabled");
		props.setProperty("tombstones.on.delete", "false");
		return props;
	}

}
