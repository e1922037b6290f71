package io.postlog.admin;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.PGProperty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Each start-up check against a real server, on every version.
 */
@Tag("matrix")
@PostgresTest
class StartupChecksIntegrationTests {

	private final PostgresDatabase database;

	private Connection connection;

	private StartupChecks checks;

	private int version;

	StartupChecksIntegrationTests(PostgresDatabase database) {
		this.database = database;
	}

	@BeforeEach
	void connect() throws SQLException {
		this.connection = this.database.connect();
		this.checks = new StartupChecks(this.connection);
		this.version = new ReplicationAdmin(this.connection).serverVersion();
	}

	@AfterEach
	void dropSlotsAndClose() throws SQLException {
		try (Statement statement = this.connection.createStatement()) {
			statement.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
					+ " WHERE database = current_database() AND NOT active");
		}
		this.connection.close();
	}

	@Test
	void aPublicationMadeBeforeItsSlotPassesAndOnlyUnboundedRetentionIsWarnedAbout() {
		this.database.execute("CREATE TABLE ordered (id int PRIMARY KEY)",
				"CREATE PUBLICATION ordered_pub FOR TABLE ordered",
				"SELECT pg_create_logical_replication_slot('ordered_slot', 'pgoutput')",
				"INSERT INTO ordered VALUES (1)");
		StartupReport report = this.checks
			.run(StartupCheckRequest.of("ordered_slot", "ordered_pub").withTables(List.of(TableId.parse("ordered"))));
		assertThat(report.failures()).isEmpty();
		assertThat(report.warnings()).extracting(StartupFinding::check)
			.containsExactly(StartupFinding.Check.MAX_SLOT_WAL_KEEP_SIZE);
		assertThat(report.warnings().get(0).message())
			.contains((this.version >= 130000) ? "max_slot_wal_keep_size is -1" : "cannot bound the WAL");
		report.throwIfFailed();
	}

	@Test
	void aPublicationMadeAfterItsSlotWithChangesBetweenIsFoundAndTheFixWorks() throws Exception {
		this.database.execute("CREATE TABLE late (id int PRIMARY KEY)",
				"SELECT pg_create_logical_replication_slot('late_slot', 'pgoutput')", "INSERT INTO late VALUES (1)",
				"CREATE PUBLICATION late_pub FOR TABLE late", "INSERT INTO late VALUES (2)");
		StartupReport report = this.checks.run(StartupCheckRequest.of("late_slot", "late_pub"));
		List<StartupFinding> findings = report.of(StartupFinding.Check.PUBLICATION_AFTER_SLOT);
		assertThat(findings).hasSize(1);
		if (this.version < 180000) {
			StartupFinding finding = findings.get(0);
			assertThat(finding.severity()).isEqualTo(StartupFinding.Severity.FAILURE);
			assertThat(finding.failure()).isInstanceOfSatisfying(PublicationCreatedAfterSlotException.class, (ex) -> {
				assertThat(ex.slotName()).isEqualTo("late_slot");
				assertThat(ex.publicationName()).isEqualTo("late_pub");
				assertThat(ex.confirmedFlushLsn()).isEqualTo(confirmedFlushLsn("late_slot"));
				assertThat(ex.sqlState()).isEqualTo("42704");
			});
			assertThat(finding.fix()).contains((this.version >= 110000) ? "pg_replication_slot_advance('late_slot'"
					: "pg_drop_replication_slot('late_slot')");
			assertThatExceptionOfType(PublicationCreatedAfterSlotException.class).isThrownBy(report::throwIfFailed);
			assertStreamingFailsWithUndefinedObject("late_slot", "late_pub");
		}
		else {
			assertThat(findings.get(0).severity()).isEqualTo(StartupFinding.Severity.WARNING);
			assertThat(findings.get(0).message()).contains("PostgreSQL skips them");
		}
		if (this.version >= 110000) {
			this.database.execute("SELECT pg_replication_slot_advance('late_slot', pg_current_wal_lsn())");
		}
		else {
			this.database.execute("SELECT pg_drop_replication_slot('late_slot')",
					"SELECT pg_create_logical_replication_slot('late_slot', 'pgoutput')");
		}
		assertThat(this.checks.run(StartupCheckRequest.of("late_slot", "late_pub"))
			.of(StartupFinding.Check.PUBLICATION_AFTER_SLOT)).isEmpty();
	}

	private void assertStreamingFailsWithUndefinedObject(String slot, String publication) {
		assertThatExceptionOfType(SQLException.class).isThrownBy(() -> {
			try (RawStream stream = RawStream.open(this.database, slot, publication)) {
				long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
				while (System.nanoTime() < deadline) {
					stream.readPending();
					Thread.sleep(20);
				}
			}
		}).satisfies((ex) -> assertThat(ex.getSQLState()).isEqualTo("42704"));
	}

	@Test
	void aPublicationMadeAfterItsSlotWithNoChangesBetweenIsFine() {
		this.database.execute("CREATE TABLE quiet (id int PRIMARY KEY)",
				"SELECT pg_create_logical_replication_slot('quiet_slot', 'pgoutput')",
				"CREATE PUBLICATION quiet_pub FOR TABLE quiet", "INSERT INTO quiet VALUES (1)");
		assertThat(this.checks.run(StartupCheckRequest.of("quiet_slot", "quiet_pub")).findings())
			.extracting(StartupFinding::check)
			.doesNotContain(StartupFinding.Check.PUBLICATION_AFTER_SLOT);
	}

	@Test
	void aPublicationStillToBeMadeForASlotWithPendingChangesIsFound() {
		this.database.execute("CREATE TABLE pending (id int PRIMARY KEY)",
				"SELECT pg_create_logical_replication_slot('pending_slot', 'pgoutput')",
				"INSERT INTO pending VALUES (1)");
		List<StartupFinding> findings = this.checks.run(StartupCheckRequest.of("pending_slot", "pending_pub"))
			.of(StartupFinding.Check.PUBLICATION_AFTER_SLOT);
		assertThat(findings).hasSize(1);
		assertThat(findings.get(0).severity())
			.isEqualTo((this.version < 180000) ? StartupFinding.Severity.FAILURE : StartupFinding.Severity.WARNING);
	}

	@Test
	void tablesWithoutAUsableReplicaIdentityAreRefused() {
		this.database.execute("CREATE TABLE keyless (id int)", "CREATE TABLE keyed (id int PRIMARY KEY)",
				"CREATE TABLE whole (id int)", "ALTER TABLE whole REPLICA IDENTITY FULL",
				"CREATE TABLE indexed (id int NOT NULL)", "CREATE UNIQUE INDEX indexed_id ON indexed (id)",
				"ALTER TABLE indexed REPLICA IDENTITY USING INDEX indexed_id",
				"CREATE TABLE nothing (id int PRIMARY KEY)", "ALTER TABLE nothing REPLICA IDENTITY NOTHING");
		List<TableId> tables = List.of(TableId.parse("keyless"), TableId.parse("keyed"), TableId.parse("whole"),
				TableId.parse("indexed"), TableId.parse("nothing"));
		StartupReport report = this.checks
			.run(StartupCheckRequest.of("identity_slot", "identity_pub").withTables(tables));
		List<StartupFinding> findings = report.of(StartupFinding.Check.REPLICA_IDENTITY);
		assertThat(findings).hasSize(1);
		assertThat(findings.get(0).failure()).isInstanceOfSatisfying(ReplicaIdentityException.class,
				(ex) -> assertThat(ex.tables()).containsExactly(TableId.parse("keyless"), TableId.parse("nothing")));
		assertThat(findings.get(0).fix()).contains("REPLICA IDENTITY FULL", "primary key");

		this.database.execute("CREATE PUBLICATION inserts_only FOR TABLE keyless WITH (publish = 'insert')");
		assertThat(this.checks.run(StartupCheckRequest.of("identity_slot", "inserts_only"))
			.of(StartupFinding.Check.REPLICA_IDENTITY)).isEmpty();
		// A publication that exists holds the keyless table already: postlog changes
		// nothing there, so it warns, naming it, and streams.
		this.database.execute("CREATE PUBLICATION everything FOR TABLE keyless, keyed");
		assertThat(this.checks.run(StartupCheckRequest.of("identity_slot", "everything"))
			.of(StartupFinding.Check.REPLICA_IDENTITY)).singleElement().satisfies((finding) -> {
				assertThat(finding.severity()).isEqualTo(StartupFinding.Severity.WARNING);
				assertThat(finding.message()).contains("[public.keyless]").doesNotContain("keyed");
			});
		// A keyless table sync would add is postlog's own doing: refused.
		this.database.execute("CREATE TABLE appended (id int)");
		assertThat(this.checks
			.run(StartupCheckRequest.of("identity_slot", "everything")
				.withPublicationMode(PublicationMode.SYNC)
				.withTables(List.of(TableId.parse("keyed"), TableId.parse("appended"))))
			.of(StartupFinding.Check.REPLICA_IDENTITY)).singleElement()
			.satisfies((finding) -> assertThat(((ReplicaIdentityException) finding.failure()).tables())
				.containsExactly(TableId.parse("appended")));
		this.database.execute("ALTER TABLE keyless ADD PRIMARY KEY (id)");
		assertThat(this.checks.run(StartupCheckRequest.of("identity_slot", "everything"))
			.of(StartupFinding.Check.REPLICA_IDENTITY)).isEmpty();
	}

	@Test
	void failoverIsRefusedBefore17AndWarnsWhereTheServerIsNotSetUpForIt() {
		this.database.execute("SELECT pg_create_logical_replication_slot('no_failover', 'pgoutput')");
		List<StartupFinding> findings = this.checks
			.run(StartupCheckRequest.of("no_failover", "failover_pub").withFailover(true))
			.of(StartupFinding.Check.FAILOVER);
		if (this.version < 170000) {
			assertThat(findings).singleElement()
				.satisfies((finding) -> assertThat(finding.failure()).isInstanceOf(ServerVersionException.class)
					.hasMessageContaining("PostgreSQL 17"));
			return;
		}
		assertThat(findings).extracting(StartupFinding::severity)
			.containsExactly(StartupFinding.Severity.WARNING, StartupFinding.Severity.WARNING);
		assertThat(findings.get(0).fix()).contains("ALTER_REPLICATION_SLOT no_failover (FAILOVER true)");
		assertThat(findings.get(1).message()).contains("synchronized_standby_slots is empty");
	}

	@Test
	void theHeartbeatTableMustBePublishedBefore14() {
		this.database.execute("CREATE TABLE beats (slot_name text PRIMARY KEY)",
				"CREATE TABLE other (id int PRIMARY KEY)", "CREATE PUBLICATION beat_pub FOR TABLE other");
		TableId beats = TableId.parse("beats");
		StartupCheckRequest request = StartupCheckRequest.of("beat_slot", "beat_pub")
			.withPublicationMode(PublicationMode.EXISTING)
			.withHeartbeatTable(beats);
		List<StartupFinding> findings = this.checks.run(request).of(StartupFinding.Check.HEARTBEAT_TABLE);
		if (this.version >= 140000) {
			assertThat(findings).isEmpty();
			return;
		}
		assertThat(findings).singleElement()
			.satisfies((finding) -> assertThat(finding.fix())
				.isEqualTo("ALTER PUBLICATION \"beat_pub\" ADD TABLE \"public\".\"beats\""));
		assertThat(this.checks
			.run(request.withPublicationMode(PublicationMode.SYNC).withTables(List.of(TableId.parse("other"), beats)))
			.of(StartupFinding.Check.HEARTBEAT_TABLE)).isEmpty();
	}

	@Test
	void aServerWithoutRoomOrWithRiskySettingsIsFound() throws Exception {
		EmbeddedPostgresServer.Builder builder = EmbeddedPostgresServer.builder()
			.setting("wal_level", "replica")
			.setting("max_replication_slots", "2")
			.setting("max_wal_senders", "2");
		if (this.version >= 130000) {
			builder.setting("max_slot_wal_keep_size", "64MB");
		}
		if (this.version >= 180000) {
			builder.setting("idle_replication_slot_timeout", "1h");
		}
		try (EmbeddedPostgresServer server = builder.start(); Connection admin = server.connect("postgres")) {
			StartupChecks checks = new StartupChecks(admin);
			StartupCheckRequest request = StartupCheckRequest.of("cramped", "cramped_pub");
			StartupReport report = checks.run(request);
			assertThat(report.failures()).extracting(StartupFinding::check)
				.containsExactly(StartupFinding.Check.WAL_LEVEL);
			assertThat(report.failures().get(0).failure()).isInstanceOf(WalLevelException.class);
			assertThat(report.warnings()).extracting(StartupFinding::check)
				.containsExactlyElementsOf((this.version >= 180000)
						? List.of(StartupFinding.Check.IDLE_REPLICATION_SLOT_TIMEOUT)
						: (this.version >= 130000) ? List.of() : List.of(StartupFinding.Check.MAX_SLOT_WAL_KEEP_SIZE));
			try (Statement statement = admin.createStatement()) {
				statement.execute("SELECT pg_create_physical_replication_slot('full_1')");
				statement.execute("SELECT pg_create_physical_replication_slot('full_2')");
			}
			assertThat(checks.run(request).of(StartupFinding.Check.REPLICATION_SLOTS)).singleElement()
				.satisfies((finding) -> assertThat(finding.failure())
					.isInstanceOfSatisfying(ReplicationCapacityException.class, (ex) -> {
						assertThat(ex.setting()).isEqualTo("max_replication_slots");
						assertThat(ex.limit()).isEqualTo(2);
						assertThat(ex.used()).isEqualTo(2);
					}));
			assertThat(checks.run(request.withLifecycle(SlotLifecycle.EXISTING))
				.of(StartupFinding.Check.REPLICATION_SLOTS)).isEmpty();
			try (Connection first = physicalReplication(server)) {
				assertThat(checks.run(request).of(StartupFinding.Check.WAL_SENDERS)).singleElement()
					.satisfies((finding) -> assertThat(finding.message()).contains("Only one WAL sender is free"));
				try (Connection second = physicalReplication(server)) {
					assertThat(checks.run(request).of(StartupFinding.Check.WAL_SENDERS)).singleElement()
						.satisfies((finding) -> assertThat(finding.failure()).isInstanceOfSatisfying(
								ReplicationCapacityException.class,
								(ex) -> assertThat(ex.setting()).isEqualTo("max_wal_senders")));
				}
			}
		}
	}

	private static Connection physicalReplication(EmbeddedPostgresServer server) throws SQLException {
		Properties properties = new Properties();
		PGProperty.USER.set(properties, "postgres");
		PGProperty.REPLICATION.set(properties, "true");
		PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "9.4");
		PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
		return DriverManager.getConnection(server.jdbcUrl("postgres"), properties);
	}

	private Lsn confirmedFlushLsn(String slot) {
		return new ReplicationAdmin(this.connection).slot(slot).orElseThrow().confirmedFlushLsn();
	}

}
