package io.postlog.admin;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import io.postlog.Lsn;
import io.postlog.decoder.DecoderRequest;
import io.postlog.TableId;
import io.postlog.stream.LogicalStream;
import io.postlog.stream.PgLogicalStreamFactory;
import io.postlog.stream.ReplicationConnectionFactory;
import io.postlog.stream.PgOutputCapture;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@Tag("matrix")
@PostgresTest
class ReplicationAdminIntegrationTests {

	private final PostgresDatabase database;

	private Connection connection;

	private ReplicationAdmin admin;

	ReplicationAdminIntegrationTests(PostgresDatabase database) {
		this.database = database;
	}

	@BeforeEach
	void connect() throws Exception {
		this.connection = this.database.connect();
		this.admin = new ReplicationAdmin(this.connection);
	}

	@AfterEach
	void dropSlotsAndClose() throws Exception {
		try (Statement statement = this.connection.createStatement()) {
			statement.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
					+ " WHERE database = current_database() AND NOT active");
		}
		this.connection.close();
	}

	@Test
	void serverFactsComeFromTheServer() throws Exception {
		assertThat(this.admin.serverVersion()).isEqualTo(this.database.serverVersion());
		assertThat(this.admin.walLevel()).isEqualTo("logical");
		assertThat(this.admin.hasReplicationPrivilege()).isTrue();
		Lsn before = this.admin.currentLsn();
		this.database.execute("CREATE TABLE facts (id int)", "INSERT INTO facts VALUES (1)");
		assertThat(this.admin.currentLsn()).isGreaterThan(before);
	}

	@Test
	void createIfMissingCreatesAPgoutputSlotAndDescribesIt() throws Exception {
		SlotInfo created = this.admin.ensureSlot("created_slot", SlotLifecycle.CREATE_IF_MISSING);
		boolean walStatusKnown = this.admin.serverVersion() >= 130000;
		Lsn restart = Lsn
			.parse(queryString("SELECT restart_lsn::text FROM pg_replication_slots WHERE slot_name = 'created_slot'"));
		Lsn confirmed = Lsn.parse(queryString(
				"SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = 'created_slot'"));
		boolean failoverKnown = this.admin.serverVersion() >= 170000;
		boolean conflictingKnown = this.admin.serverVersion() >= 160000;
		assertThat(created).isEqualTo(new SlotInfo("created_slot", "pgoutput", "logical", this.database.name(), false,
				false, null, restart, confirmed, walStatusKnown ? "reserved" : null, null, created.inactiveSince(),
				conflictingKnown ? false : null, null, failoverKnown ? false : null, failoverKnown ? false : null));
		assertThat(created.inactiveSince() != null).isEqualTo(failoverKnown);
		assertThat(restart.isValid()).isTrue();
		assertThat(confirmed).isGreaterThanOrEqualTo(restart).isLessThanOrEqualTo(this.admin.currentLsn());
		assertThat(this.admin.slot("created_slot")).contains(created);
	}

	@Test
	void createIfMissingKeepsAnExistingSlot() {
		SlotInfo first = this.admin.ensureSlot("kept_slot", SlotLifecycle.CREATE_IF_MISSING);
		this.database.execute("CREATE TABLE kept (id int)", "INSERT INTO kept VALUES (1)");
		SlotInfo second = this.admin.ensureSlot("kept_slot", SlotLifecycle.CREATE_IF_MISSING);
		assertThat(second.restartLsn()).isEqualTo(first.restartLsn());
		assertThat(second.confirmedFlushLsn()).isEqualTo(first.confirmedFlushLsn());
	}

	@Test
	void existingRequiresTheSlot() {
		assertThatExceptionOfType(SlotNotFoundException.class)
			.isThrownBy(() -> this.admin.ensureSlot("missing_slot", SlotLifecycle.EXISTING))
			.satisfies((ex) -> assertThat(ex.slotName()).isEqualTo("missing_slot"));
		assertThat(this.admin.slot("missing_slot")).isEmpty();
		this.admin.ensureSlot("missing_slot", SlotLifecycle.OWNED);
		assertThat(this.admin.ensureSlot("missing_slot", SlotLifecycle.EXISTING).slotName()).isEqualTo("missing_slot");
	}

	@Test
	void ownedSlotIsCreatedAndDropSlotRemovesIt() {
		assertThat(this.admin.ensureSlot("owned_slot", SlotLifecycle.OWNED).temporary()).isFalse();
		assertThat(this.admin.dropSlot("owned_slot")).isTrue();
		assertThat(this.admin.slot("owned_slot")).isEmpty();
		assertThat(this.admin.dropSlot("owned_slot")).isFalse();
	}

	@Test
	void temporaryCreatesNothingAndDescribesTheSlotToCome() {
		SlotInfo planned = this.admin.ensureSlot("temp_slot", SlotLifecycle.TEMPORARY);
		assertThat(planned).isEqualTo(new SlotInfo("temp_slot", "pgoutput", "logical", this.database.name(), true,
				false, null, null, null, null, null));
		assertThat(this.admin.slot("temp_slot")).isEmpty();
	}

	@Test
	void temporaryIsRefusedWhenAPermanentSlotHasTheName() {
		this.admin.ensureSlot("permanent_slot", SlotLifecycle.CREATE_IF_MISSING);
		assertThatExceptionOfType(SlotConflictException.class)
			.isThrownBy(() -> this.admin.ensureSlot("permanent_slot", SlotLifecycle.TEMPORARY))
			.withMessageContaining("permanent")
			.satisfies((ex) -> assertThat(ex.existing().slotName()).isEqualTo("permanent_slot"));
	}

	@Test
	void slotOfAnotherPluginIsRefusedForEveryLifecycle() throws Exception {
		queryString("SELECT slot_name FROM pg_create_logical_replication_slot('decoding_slot', 'test_decoding')");
		for (SlotLifecycle lifecycle : SlotLifecycle.values()) {
			assertThatExceptionOfType(SlotPluginMismatchException.class)
				.isThrownBy(() -> this.admin.ensureSlot("decoding_slot", lifecycle))
				.withMessageContaining("'test_decoding'")
				.withMessageContaining("'pgoutput'")
				.withMessageContaining(this.database.name());
		}
		assertThat(this.admin.slot("decoding_slot").map(SlotInfo::plugin)).contains("test_decoding");
	}

	@Test
	void slotOfAnotherDatabaseIsRefused() throws Exception {
		PostgresDatabase other = this.database.server().createDatabase();
		try (Connection otherConnection = other.connect()) {
			new ReplicationAdmin(otherConnection).ensureSlot("other_db_slot", SlotLifecycle.CREATE_IF_MISSING);
			assertThatExceptionOfType(SlotPluginMismatchException.class)
				.isThrownBy(() -> this.admin.ensureSlot("other_db_slot", SlotLifecycle.CREATE_IF_MISSING))
				.withMessageContaining("database '" + other.name() + "'");
		}
		finally {
			other.drop();
		}
	}

	@Test
	void dropSlotRefusesAnActiveSlot() throws Exception {
		this.database.execute("CREATE TABLE busy (id int)", "CREATE PUBLICATION busy_pub FOR TABLE busy");
		this.admin.ensureSlot("busy_slot", SlotLifecycle.CREATE_IF_MISSING);
		PgLogicalStreamFactory streams = new PgLogicalStreamFactory(
				ReplicationConnectionFactory.of(this.database.jdbcUrl(), this.database.username(), null));
		try (LogicalStream stream = streams
			.open(PgOutputCapture.request("busy_slot", "busy_pub", DecoderRequest.text(), false))) {
			stream.read(Duration.ofMillis(100));
			SlotInfo active = this.admin.slot("busy_slot").orElseThrow();
			assertThat(active.active()).isTrue();
			assertThat(active.activePid()).isNotNull();
			assertThatExceptionOfType(SlotInUseException.class).isThrownBy(() -> this.admin.dropSlot("busy_slot"))
				.satisfies((ex) -> assertThat(ex.activePid()).isEqualTo(active.activePid()));
		}
		assertThat(this.admin.slot("busy_slot")).isPresent();
	}

	@Test
	void hostileSlotNamesAreRefusedBeforeAnySqlRuns() throws Exception {
		this.database.execute("CREATE TABLE IF NOT EXISTS y (id int)");
		CountingConnection counting = new CountingConnection(this.connection);
		ReplicationAdmin guarded = new ReplicationAdmin(counting.connection());
		List<String> hostile = List.of("x; DROP TABLE y", "x'); DROP TABLE y; --", "\"quoted\"", "Uppercase",
				"sl\u00f6t", "s".repeat(64), "", "with space");
		for (String name : hostile) {
			List<Consumer<String>> calls = List.of(guarded::slot, (slot) -> guarded.dropSlot(slot),
					(slot) -> guarded.ensureSlot(slot, SlotLifecycle.CREATE_IF_MISSING),
					(slot) -> guarded.ensureSlot(slot, SlotLifecycle.TEMPORARY));
			for (Consumer<String> call : calls) {
				assertThatExceptionOfType(InvalidIdentifierException.class).isThrownBy(() -> call.accept(name));
			}
		}
		assertThat(counting.statements()).isZero();
		assertThat(queryString("SELECT to_regclass('public.y')::text")).isEqualTo("y");
	}

	@Test
	void invalidPublicationAndTableNamesAreRefusedBeforeAnySqlRuns() {
		CountingConnection counting = new CountingConnection(this.connection);
		ReplicationAdmin guarded = new ReplicationAdmin(counting.connection());
		String tooLong = "p".repeat(64);
		String tooLongUnicode = "\u00e9".repeat(32);
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> guarded.ensurePublication(tooLong, PublicationMode.SYNC, List.of()));
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> guarded.ensurePublication("nul\0pub", PublicationMode.SYNC, List.of()));
		assertThatExceptionOfType(InvalidIdentifierException.class).isThrownBy(() -> guarded.ensurePublication("fine",
				PublicationMode.SYNC, List.of(new TableId("public", tooLongUnicode))));
		assertThatExceptionOfType(InvalidIdentifierException.class).isThrownBy(
				() -> guarded.ensurePublication("fine", PublicationMode.SYNC, List.of(new TableId(tooLong, "t"))));
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> guarded.publicationTables(tooLong));
		assertThat(counting.statements()).isZero();
	}

	@Test
	void hostileButValidNamesAreQuotedNotExecuted() throws Exception {
		this.database.execute("CREATE TABLE IF NOT EXISTS y (id int)", "CREATE SCHEMA \"Odd \"\"Schema\"\"\"",
				"CREATE TABLE \"Odd \"\"Schema\"\"\".\"x; DROP TABLE y\" (id int)");
		TableId odd = new TableId("Odd \"Schema\"", "x; DROP TABLE y");
		this.admin.ensurePublication("x; DROP TABLE y", PublicationMode.CREATE_IF_MISSING, List.of(odd));
		assertThat(this.admin.publicationTables("x; DROP TABLE y")).containsExactly(odd);
		assertThat(queryString("SELECT to_regclass('public.y')::text")).isEqualTo("y");
	}

	@Test
	void createIfMissingCreatesThePublicationForTheTables() {
		this.database.execute("CREATE TABLE orders (id int)", "CREATE TABLE customers (id int)",
				"CREATE TABLE notes (id int)");
		this.admin.ensurePublication("shop", PublicationMode.CREATE_IF_MISSING,
				List.of(TableId.parse("orders"), TableId.parse("customers")));
		assertThat(this.admin.publicationTables("shop")).containsExactly(TableId.parse("customers"),
				TableId.parse("orders"));
		this.admin.ensurePublication("shop", PublicationMode.CREATE_IF_MISSING,
				List.of(TableId.parse("orders"), TableId.parse("notes")));
		assertThat(this.admin.publicationTables("shop")).containsExactly(TableId.parse("customers"),
				TableId.parse("orders"));
	}

	@Test
	void syncAddsTheMissingTables() {
		this.database.execute("CREATE TABLE s1 (id int)", "CREATE TABLE s2 (id int)", "CREATE TABLE s3 (id int)",
				"CREATE PUBLICATION synced FOR TABLE s1");
		this.admin.ensurePublication("synced", PublicationMode.SYNC,
				List.of(TableId.parse("s2"), TableId.parse("s1"), TableId.parse("s3")));
		assertThat(this.admin.publicationTables("synced")).containsExactly(TableId.parse("s1"), TableId.parse("s2"),
				TableId.parse("s3"));
	}

	@Test
	void syncCreatesAMissingPublication() {
		this.database.execute("CREATE TABLE fresh (id int)");
		this.admin.ensurePublication("fresh_pub", PublicationMode.SYNC, List.of(TableId.parse("fresh")));
		assertThat(this.admin.publicationTables("fresh_pub")).containsExactly(TableId.parse("fresh"));
	}

	@Test
	void existingRequiresThePublicationAndChangesNothing() {
		assertThatExceptionOfType(PublicationNotFoundException.class)
			.isThrownBy(() -> this.admin.ensurePublication("absent", PublicationMode.EXISTING, List.of()))
			.satisfies((ex) -> assertThat(ex.publicationName()).isEqualTo("absent"));
		assertThat(this.admin.publicationExists("absent")).isFalse();
		this.database.execute("CREATE TABLE e1 (id int)", "CREATE TABLE e2 (id int)",
				"CREATE PUBLICATION present FOR TABLE e1");
		this.admin.ensurePublication("present", PublicationMode.EXISTING,
				List.of(TableId.parse("e1"), TableId.parse("e2")));
		assertThat(this.admin.publicationTables("present")).containsExactly(TableId.parse("e1"));
	}

	@Test
	void emptyTableListMeansAllTables() throws Exception {
		this.database.execute("CREATE TABLE a1 (id int)");
		this.admin.ensurePublication("everything", PublicationMode.CREATE_IF_MISSING, List.of());
		assertThat(queryString("SELECT puballtables::text FROM pg_publication WHERE pubname = 'everything'"))
			.isEqualTo("true");
		this.database.execute("CREATE TABLE a2 (id int)");
		this.admin.ensurePublication("everything", PublicationMode.SYNC, List.of(TableId.parse("a2")));
		assertThat(this.admin.publicationTables("everything")).contains(TableId.parse("a1"), TableId.parse("a2"));
	}

	@Test
	void publicationTablesOfAMissingPublicationIsAnError() {
		assertThatExceptionOfType(PublicationNotFoundException.class)
			.isThrownBy(() -> this.admin.publicationTables("nowhere"));
	}

	@Test
	void roleWithoutReplicationGetsThePrivilegeError() throws Exception {
		String role = "plain_" + this.database.name();
		this.database.execute("CREATE ROLE " + role + " LOGIN");
		try (Connection plain = DriverManager.getConnection(this.database.jdbcUrl(), role, null)) {
			ReplicationAdmin plainAdmin = new ReplicationAdmin(plain);
			assertThat(plainAdmin.hasReplicationPrivilege()).isFalse();
			assertThatExceptionOfType(InsufficientPrivilegeException.class)
				.isThrownBy(() -> plainAdmin.ensureSlot("unprivileged_slot", SlotLifecycle.CREATE_IF_MISSING))
				.satisfies((ex) -> {
					assertThat(ex.role()).isEqualTo(role);
					assertThat(ex.sqlState()).isEqualTo("42501");
				})
				.withMessageContaining("REPLICATION");
			assertThatExceptionOfType(InsufficientPrivilegeException.class)
				.isThrownBy(() -> plainAdmin.ensurePublication("all_pub", PublicationMode.CREATE_IF_MISSING, List.of()))
				.satisfies((ex) -> assertThat(ex.sqlState()).isEqualTo("42501"));
		}
		finally {
			this.database.execute("DROP ROLE " + role);
		}
		assertThat(this.admin.slot("unprivileged_slot")).isEqualTo(Optional.empty());
	}

	private String queryString(String sql) throws Exception {
		try (Statement statement = this.connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
			row.next();
			return row.getString(1);
		}
	}

}
