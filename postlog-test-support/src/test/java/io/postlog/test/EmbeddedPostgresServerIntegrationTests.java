package io.postlog.test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

@Tag("matrix")
@PostgresTest
class EmbeddedPostgresServerIntegrationTests {

	@Test
	void serverRunsTheRequestedVersionWithLogicalDecoding(PostgresDatabase database) {
		String requested = System.getProperty("postlog.postgres.version", "17.6.0");
		int major = Integer.parseInt(requested.substring(0, requested.indexOf('.')));
		assertThat(database.serverVersion() / 10000).isEqualTo(major);
		assertThat(database.server().setting("wal_level")).isEqualTo("logical");
		assertThat(database.server().setting("listen_addresses")).isEqualTo("127.0.0.1");
	}

	@Test
	void pgoutputSlotReadsBackAnInsert(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE greeting (id int PRIMARY KEY, word text)",
				"CREATE PUBLICATION greeting_pub FOR TABLE greeting",
				"SELECT pg_create_logical_replication_slot('greeting_slot', 'pgoutput')",
				"INSERT INTO greeting VALUES (1, 'hello')");
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet changes = statement.executeQuery("SELECT data FROM pg_logical_slot_peek_binary_changes("
						+ "'greeting_slot', NULL, NULL, 'proto_version', '1', 'publication_names', 'greeting_pub')")) {
			StringBuilder tags = new StringBuilder();
			while (changes.next()) {
				tags.append((char) changes.getBytes(1)[0]);
			}
			// Begin, Relation, Insert, Commit.
			assertThat(tags).hasToString("BRIC");
		}
		finally {
			database.execute("SELECT pg_drop_replication_slot('greeting_slot')");
		}
	}

}
