package io.postlog.consumer;

import java.sql.Connection;
import java.util.List;

import io.postlog.TableId;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.ReplicaIdentityException;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.ServerVersionException;
import io.postlog.admin.SlotInfo;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The consumer's set-up on a real server: the start-up checks fail start typed, before
 * anything is created; a failover slot is created with failover from PostgreSQL 17 and
 * refused before, naming the version.
 */
@Tag("matrix")
@PostgresTest
class ConsumerSetupIntegrationTests {

	@Test
	void aKeylessTablePublishedForUpdatesFailsStartBeforeThePublicationOrSlotIsCreated(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE keyless (id int)");
		ReplicationConsumer consumer = consumer(database, "keyless_slot", "keyless").build();
		assertThatExceptionOfType(ReplicaIdentityException.class).isThrownBy(consumer::start)
			.satisfies((ex) -> assertThat(ex.tables()).containsExactly(TableId.parse("keyless")));
		assertThat(consumer.state()).isEqualTo(ConsumerState.FAILED);
		try (Connection connection = database.connect()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			assertThat(admin.publicationExists("keyless_slot_pub")).isFalse();
			assertThat(admin.slot("keyless_slot")).isEmpty();
		}
		consumer.stop();
	}

	@Test
	void aKeylessTableInAPublicationOfInsertsOnlyStarts(PostgresDatabase database) {
		database.execute("CREATE TABLE appended (id int)",
				"CREATE PUBLICATION appended_slot_pub FOR TABLE appended WITH (publish = 'insert')");
		ReplicationConsumer consumer = consumer(database, "appended_slot", "appended")
			.publicationMode(PublicationMode.EXISTING)
			.build();
		consumer.start();
		try {
			assertThat(consumer.state()).isIn(ConsumerState.STARTING, ConsumerState.RUNNING);
		}
		finally {
			consumer.stop();
		}
	}

	@Test
	void failoverCreatesAFailoverSlotFrom17AndIsRefusedBeforeNamingTheVersion(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE orders (id int PRIMARY KEY)");
		ReplicationConsumer consumer = consumer(database, "failover_slot", "orders").failover(true).build();
		if (database.serverVersion() < 170000) {
			assertThatExceptionOfType(ServerVersionException.class).isThrownBy(consumer::start)
				.withMessageContaining("Failover slots need PostgreSQL 17 or later; the server is PostgreSQL "
						+ (database.serverVersion() / 10000));
			try (Connection connection = database.connect()) {
				assertThat(new ReplicationAdmin(connection).slot("failover_slot")).isEmpty();
			}
			return;
		}
		consumer.start();
		try (Connection connection = database.connect()) {
			SlotInfo slot = new ReplicationAdmin(connection).slot("failover_slot").orElseThrow();
			assertThat(slot.failover()).isTrue();
		}
		finally {
			consumer.stop();
		}
	}

	private static ReplicationConsumer.Builder consumer(PostgresDatabase database, String slot, String table) {
		return ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName(slot)
			.publicationName(slot + "_pub")
			.tables(List.of(TableId.parse(table)))
			.changeHandler((change) -> {
			});
	}

}
