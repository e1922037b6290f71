package io.postlog.consumer;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.ReplicaIdentityException;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A publication postlog does not manage may hold tables without a replica identity:
 * postlog warns, naming them, and streams their inserts; a keyless table postlog would
 * add itself ({@code sync}) is refused. A class of its own: a {@code FOR ALL TABLES}
 * publication makes PostgreSQL refuse UPDATE and DELETE on every keyless table of the
 * database.
 */
@Tag("matrix")
@PostgresTest
class ExistingPublicationIntegrationTests {

	@Test
	void anExistingPublicationForAllTablesWithAKeylessTableWarnsNamingItAndStreamsItsInserts(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE audit_log (at timestamptz NOT NULL DEFAULT now(), line text)",
				"CREATE TABLE accounts (id int PRIMARY KEY, name text)",
				"CREATE PUBLICATION everything_pub FOR ALL TABLES");
		List<Change> received = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName("everything_slot")
			.publicationName("everything_pub")
			.publicationMode(PublicationMode.EXISTING)
			.changeHandler(received::add)
			.build();
		ByteArrayOutputStream logs = ReplicationConsumerIntegrationTests.captureStdErr();
		try {
			consumer.start();
		}
		finally {
			ReplicationConsumerIntegrationTests.restoreStdErr();
		}
		try {
			database.execute("INSERT INTO audit_log (line) VALUES ('first')", "INSERT INTO accounts VALUES (1, 'a')",
					"UPDATE accounts SET name = 'b' WHERE id = 1");
			await().atMost(Duration.ofSeconds(30)).until(() -> received.size() == 3);
			assertThat(received).extracting(Change::table, Change::operation)
				.containsExactly(org.assertj.core.groups.Tuple.tuple(TableId.parse("audit_log"), Operation.INSERT),
						org.assertj.core.groups.Tuple.tuple(TableId.parse("accounts"), Operation.INSERT),
						org.assertj.core.groups.Tuple.tuple(TableId.parse("accounts"), Operation.UPDATE));
			assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
		}
		finally {
			consumer.stop();
		}
		String log = logs.toString(StandardCharsets.UTF_8);
		assertThat(log.lines().filter((line) -> line.contains("WARN") && line.contains("everything_pub")))
			.singleElement()
			.satisfies((line) -> assertThat(line).contains("[public.audit_log]")
				.contains("without a usable replica identity")
				.doesNotContain("accounts"));
	}

	@Test
	void aKeylessTableThatSyncWouldAddIsRefusedAndThePublicationIsLeftAsItWas(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE synced (id int PRIMARY KEY)", "CREATE TABLE unkeyed (id int)",
				"CREATE PUBLICATION synced_pub FOR TABLE synced");
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName("synced_slot")
			.publicationName("synced_pub")
			.publicationMode(PublicationMode.SYNC)
			.tables(List.of(TableId.parse("synced"), TableId.parse("unkeyed")))
			.changeHandler((change) -> {
			})
			.build();
		try {
			assertThatExceptionOfType(ReplicaIdentityException.class).isThrownBy(consumer::start)
				.satisfies((ex) -> assertThat(ex.tables()).containsExactly(TableId.parse("unkeyed")));
		}
		finally {
			consumer.stop();
		}
		try (Connection connection = database.connect()) {
			assertThat(new ReplicationAdmin(connection).publicationTables("synced_pub"))
				.containsExactly(TableId.parse("synced"));
		}
	}

}
