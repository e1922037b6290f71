package io.postlog.test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

@PluginLaneTest
class PluginLaneIntegrationTests {

	@Test
	void laneServerIsDebiansPostgresql15WithBothPlugins(PostgresDatabase database) throws Exception {
		assertThat(database.serverVersion() / 10000).isEqualTo(15);
		database.execute("CREATE EXTENSION pglogical",
				"SELECT pg_create_logical_replication_slot('lane_wal2json', 'wal2json')",
				"SELECT pg_create_logical_replication_slot('lane_pglogical', 'pglogical_output')");
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			try (ResultSet row = statement.executeQuery("SELECT current_setting('shared_preload_libraries'), "
					+ "(SELECT extversion FROM pg_extension WHERE extname = 'pglogical')")) {
				row.next();
				assertThat(row.getString(1)).isEqualTo("pglogical");
				assertThat(row.getString(2)).startsWith("2.");
			}
			try (ResultSet row = statement
				.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE 'lane_%'")) {
				row.next();
				assertThat(row.getInt(1)).isEqualTo(2);
			}
		}
	}

}
