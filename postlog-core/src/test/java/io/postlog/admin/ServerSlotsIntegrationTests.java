package io.postlog.admin;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.postlog.Lsn;
import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every logical slot of the server and the replication settings, read on each server
 * version with the columns it has.
 */
@Tag("matrix")
@PostgresTest
class ServerSlotsIntegrationTests {

	private final PostgresDatabase database;

	private Connection connection;

	private ReplicationAdmin admin;

	private int version;

	ServerSlotsIntegrationTests(PostgresDatabase database) {
		this.database = database;
	}

	@BeforeEach
	void connect() throws SQLException {
		this.connection = this.database.connect();
		this.admin = new ReplicationAdmin(this.connection);
		this.version = this.admin.serverVersion();
	}

	@AfterEach
	void close() throws SQLException {
		this.connection.close();
	}

	@Test
	void logicalSlotsListsTheSlotsOfEveryDatabaseAndPluginButNoPhysicalOnes() throws Exception {
		PostgresDatabase other = this.database.server().createDatabase();
		try (Connection otherConnection = other.connect()) {
			this.database.execute("SELECT pg_create_logical_replication_slot('listed_here', 'pgoutput')",
					"SELECT pg_create_physical_replication_slot('listed_physical', true)");
			other.execute("SELECT pg_create_logical_replication_slot('listed_there', 'test_decoding')");
			Lsn before = this.admin.currentLsn();
			this.database.execute("CREATE TABLE filler (v text)",
					"INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, 2000)");
			Lsn position = this.admin.walPosition();
			assertThat(position).isGreaterThan(before).isLessThanOrEqualTo(this.admin.currentLsn());
			List<SlotInfo> slots = this.admin.logicalSlots();
			assertThat(slots).extracting(SlotInfo::slotName)
				.contains("listed_here", "listed_there")
				.doesNotContain("listed_physical");
			assertThat(slots).allSatisfy((slot) -> assertThat(slot.isLogical()).isTrue());
			SlotInfo here = find(slots, "listed_here");
			SlotInfo there = find(slots, "listed_there");
			assertThat(here.database()).isEqualTo(this.database.name());
			assertThat(here.plugin()).isEqualTo("pgoutput");
			assertThat(there.database()).isEqualTo(other.name());
			assertThat(there.plugin()).isEqualTo("test_decoding");
			assertThat(here.active()).isFalse();
			assertThat(here.activePid()).isNull();
			assertThat(here.retainedBytes(position)).isGreaterThanOrEqualTo(2_000_000L)
				.isEqualTo(position.minus(here.restartLsn()));
			assertVersionGatedColumns(here);
			assertThat(this.admin.slot("listed_here")).contains(here);
		}
		finally {
			this.database.execute("SELECT pg_drop_replication_slot('listed_physical')");
			other.drop();
		}
	}

	private void assertVersionGatedColumns(SlotInfo slot) {
		assertThat(slot.walStatus() != null).isEqualTo(this.version >= 130000);
		assertThat(slot.conflicting() != null).isEqualTo(this.version >= 160000);
		assertThat(slot.failover() != null).isEqualTo(this.version >= 170000);
		assertThat(slot.synced() != null).isEqualTo(this.version >= 170000);
		assertThat(slot.inactiveSince() != null).isEqualTo(this.version >= 170000);
		assertThat(slot.invalidationReason()).isNull();
		assertThat(slot.safeWalSize()).isNull();
		assertThat(slot.isLost()).isFalse();
		if (this.version >= 170000) {
			assertThat(slot.failover()).isFalse();
			assertThat(slot.synced()).isFalse();
			assertThat(slot.inactiveSince()).isBefore(Instant.now().plusSeconds(1));
		}
	}

	@Test
	void anActiveSlotShowsItsReaderAndNoInactiveSince() throws Exception {
		this.database.execute("CREATE TABLE watched (id int PRIMARY KEY)",
				"CREATE PUBLICATION watched_pub FOR TABLE watched",
				"SELECT pg_create_logical_replication_slot('watched_slot', 'pgoutput')");
		try (RawStream stream = RawStream.open(this.database, "watched_slot", "watched_pub")) {
			stream.readPending();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.admin.slot("watched_slot").map(SlotInfo::active).orElse(false));
			SlotInfo slot = this.admin.slot("watched_slot").orElseThrow();
			assertThat(slot.activePid()).isNotNull();
			assertThat(slot.inactiveSince()).isNull();
			assertThat(find(this.admin.logicalSlots(), "watched_slot").active()).isTrue();
		}
	}

	@Test
	void replicationSettingsCountTheSlotsAndWalSendersInUse() throws Exception {
		ReplicationSettings before = this.admin.replicationSettings();
		assertThat(before.serverVersion()).isEqualTo(this.version);
		assertThat(before.walLevel()).isEqualTo("logical");
		assertThat(before.inRecovery()).isFalse();
		assertThat(before.maxReplicationSlots()).isEqualTo(40);
		assertThat(before.maxWalSenders()).isEqualTo(40);
		assertThat(before.walSenderTimeout()).isEqualTo(Duration.ofSeconds(60));
		assertThat(before.maxWalSize()).isEqualTo(1024L * 1024 * 1024);
		assertThat(before.maxSlotWalKeepSize()).isNull();
		assertThat(before.idleReplicationSlotTimeout()).isEqualTo((this.version >= 180000) ? Duration.ZERO : null);
		assertThat(before.synchronizedStandbySlots()).isEqualTo((this.version >= 170000) ? "" : null);
		assertThat(before.syncReplicationSlots()).isEqualTo((this.version >= 170000) ? false : null);
		assertThat(before.waitsForStandbys()).isFalse();
		assertThat(before.hotStandbyFeedback()).isFalse();
		this.database.execute("SELECT pg_create_logical_replication_slot('counted_slot', 'pgoutput')");
		try (Connection replication = this.database.connectReplication()) {
			ReplicationSettings after = this.admin.replicationSettings();
			assertThat(after.usedReplicationSlots()).isEqualTo(countSlots());
			assertThat(after.usedWalSenders()).isGreaterThanOrEqualTo(1);
			assertThat(after.freeWalSenders()).isEqualTo(40 - after.usedWalSenders());
			assertThat(after.freeReplicationSlots()).isEqualTo(40 - after.usedReplicationSlots());
		}
	}

	@Test
	void settingsAreReadInTheUnitTheServerReports() {
		EmbeddedPostgresServer.Builder builder = EmbeddedPostgresServer.builder()
			.setting("wal_sender_timeout", "3min")
			.setting("max_wal_size", "2GB")
			.setting("max_replication_slots", "7")
			.setting("max_wal_senders", "6");
		if (this.version >= 130000) {
			builder.setting("max_slot_wal_keep_size", "1GB");
		}
		if (this.version >= 170000) {
			builder.setting("synchronized_standby_slots", "some_standby");
		}
		if (this.version >= 180000) {
			builder.setting("idle_replication_slot_timeout", "1h");
		}
		try (EmbeddedPostgresServer server = builder.start(); Connection other = server.connect("postgres")) {
			ReplicationSettings settings = new ReplicationAdmin(other).replicationSettings();
			assertThat(settings.walSenderTimeout()).isEqualTo(Duration.ofMinutes(3));
			assertThat(settings.maxWalSize()).isEqualTo(2L * 1024 * 1024 * 1024);
			assertThat(settings.maxReplicationSlots()).isEqualTo(7);
			assertThat(settings.maxWalSenders()).isEqualTo(6);
			assertThat(settings.maxSlotWalKeepSize()).isEqualTo((this.version >= 130000) ? 1024L * 1024 * 1024 : null);
			assertThat(settings.waitsForStandbys()).isEqualTo(this.version >= 170000);
			assertThat(settings.idleReplicationSlotTimeout())
				.isEqualTo((this.version >= 180000) ? Duration.ofHours(1) : null);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private int countSlots() throws SQLException {
		try (var statement = this.connection.createStatement();
				var row = statement.executeQuery("SELECT count(*) FROM pg_replication_slots")) {
			row.next();
			return row.getInt(1);
		}
	}

	private static SlotInfo find(List<SlotInfo> slots, String name) {
		return slots.stream().filter((slot) -> slot.slotName().equals(name)).findFirst().orElseThrow();
	}

}
