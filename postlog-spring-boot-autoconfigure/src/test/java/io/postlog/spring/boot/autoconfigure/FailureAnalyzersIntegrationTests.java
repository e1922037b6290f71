package io.postlog.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.postlog.spring.PgChangeListener;
import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Each set-up fault on a real server fails start-up with postlog's failure analysis.
 */
@PostgresTest
@ExtendWith(OutputCaptureExtension.class)
class FailureAnalyzersIntegrationTests {

	@Test
	void walLevelReplicaExplainsHowToEnableLogicalDecoding(CapturedOutput output) {
		try (EmbeddedPostgresServer server = EmbeddedPostgresServer.builder().setting("wal_level", "replica").start()) {
			PostgresDatabase database = server.createDatabase();
			database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)");
			failToStart(database);
			assertThat(output).contains("APPLICATION FAILED TO START", "wal_level is not 'logical'",
					"Set wal_level = logical");
		}
	}

	@Test
	void roleWithoutReplicationExplainsTheGrant(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)", "DROP ROLE IF EXISTS plain_app",
				"CREATE ROLE plain_app LOGIN", "ALTER TABLE orders OWNER TO plain_app",
				"GRANT CREATE ON DATABASE " + database.name() + " TO plain_app");
		failToStart(database, "--spring.datasource.username=plain_app", "--postlog.slot.name=no_privilege");
		assertThat(output).contains("postlog's database role may not do what replication needs", "Role 'plain_app'",
				"ALTER ROLE <role> REPLICATION");
	}

	@Test
	void missingSlotUnderExistingExplainsHowToCreateIt(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)");
		failToStart(database, "--postlog.slot.name=absent", "--postlog.slot.lifecycle=existing");
		assertThat(output).contains("The replication slot postlog is configured to use does not exist", "absent",
				"postlog.slot.lifecycle=create-if-missing");
	}

	@Test
	void initialSnapshotOnASlotThatMustExistExplainsWhyNot(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)",
				"SELECT pg_create_logical_replication_slot('existing_snapshot', 'pgoutput')");
		failToStart(database, "--postlog.slot.name=existing_snapshot", "--postlog.slot.lifecycle=existing",
				"--postlog.snapshot.mode=initial");
		assertThat(output).contains("APPLICATION FAILED TO START", "postlog cannot take the initial snapshot",
				"slot 'existing_snapshot'", "exists already (confirmed at ", "postlog.snapshot.mode=never");
		database.execute("SELECT pg_drop_replication_slot('existing_snapshot')");
	}

	@Test
	void badSlotNameNamesThePropertyAndTheRule(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)");
		failToStart(database, "--postlog.slot.name=Bad-Slot");
		assertThat(output).contains("APPLICATION FAILED TO START",
				"Invalid value 'Bad-Slot' for configuration property 'postlog.slot.name'",
				"slot names are 1 to 63 characters of lower-case letters, digits and underscores");
		assertThat(slotExists(database, "Bad-Slot")).isFalse();
	}

	@Test
	void publicationNameIsAnyQuotedIdentifierUpTo63Bytes(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)");
		String tooLong = "p".repeat(64);
		failToStart(database, "--postlog.slot.name=long_publication", "--postlog.publication.name=" + tooLong);
		assertThat(output).contains("APPLICATION FAILED TO START",
				"Invalid value '" + tooLong + "' for configuration property 'postlog.publication.name'",
				"the name is longer than 63 bytes (UTF-8); publication names are 1 to 63 bytes of UTF-8 without "
						+ "NUL, any other character allowed; postlog always quotes them, so case and every "
						+ "character are kept as written");
		assertThat(slotExists(database, "long_publication")).isFalse();
		// Quoted, a name that would be SQL if it were not is only a name.
		String odd = "x\"; DROP TABLE orders; --";
		SpringApplication application = new SpringApplication(BrokenApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application
			.run("--spring.datasource.url=" + database.jdbcUrl(), "--spring.datasource.username=postgres",
					"--spring.main.banner-mode=off", "--postlog.slot.name=odd_publication",
					"--postlog.publication.name=" + odd, "--postlog.slot.lifecycle=owned")
			.close();
		assertThat(
				count(database, "SELECT count(*) FROM pg_publication WHERE pubname = '" + odd.replace("'", "''") + "'"))
			.isEqualTo(1);
		assertThat(count(database, "SELECT count(*) FROM pg_class WHERE relname = 'orders'")).isEqualTo(1);
		database.execute("DROP PUBLICATION \"x\"\"; DROP TABLE orders; --\"");
	}

	@Test
	void slotOfAnotherPluginExplainsHowToReplaceIt(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)",
				"SELECT pg_create_logical_replication_slot('decoding_slot', 'test_decoding')");
		failToStart(database, "--postlog.slot.name=decoding_slot");
		assertThat(output).contains("created with another output plugin", "decoding_slot", "pg_drop_replication_slot");
	}

	@Test
	void missingTableNamesTheListenerAndTheTable(PostgresDatabase database, CapturedOutput output) {
		failToStart(database, "--test.table=orders2", "--postlog.slot.name=missing_table");
		assertThat(output).contains("APPLICATION FAILED TO START",
				"Listener 'Orders.onOrder' reads table public.orders2, which does not exist in the application's database.",
				"Create table public.orders2 before the application starts",
				"@PgChangeListener(tables = ...) of listener 'Orders.onOrder'");
		assertThat(slotExists(database, "missing_table")).isFalse();
	}

	@Test
	void tableMissingFromAnExistingPublicationSaysHowToAddIt(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)",
				"CREATE TABLE IF NOT EXISTS other (id int PRIMARY KEY)", "DROP PUBLICATION IF EXISTS only_other",
				"CREATE PUBLICATION only_other FOR TABLE other");
		failToStart(database, "--postlog.publication.name=only_other", "--postlog.publication.mode=existing",
				"--postlog.slot.name=unpublished");
		assertThat(output).contains(
				"Listener 'Orders.onOrder' reads table public.orders, but publication 'only_other' does not publish it",
				"ALTER PUBLICATION \"only_other\" ADD TABLE \"public\".\"orders\"", "postlog.publication.mode=sync");
	}

	@Test
	void tableOwnedByAnotherRoleLeadsWithOwnership(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)", "DROP ROLE IF EXISTS cdc_app",
				"CREATE ROLE cdc_app LOGIN REPLICATION", "GRANT SELECT ON orders TO cdc_app",
				"GRANT CREATE ON DATABASE " + database.name() + " TO cdc_app");
		failToStart(database, "--spring.datasource.username=cdc_app", "--postlog.slot.name=not_owner",
				"--postlog.publication.name=not_owner");
		assertThat(output).contains(
				"Role 'cdc_app' does not own table public.orders (its owner is 'postgres'), so it cannot add it to "
						+ "publication 'not_owner'. PostgreSQL lets only a table's owner",
				"GRANT \"postgres\" TO \"cdc_app\"", "postlog.publication.mode=existing");
		assertThat(slotExists(database, "not_owner")).isFalse();
	}

	@Test
	void tableWithoutPrimaryKeyGivesTheFix(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS events (id int, payload text)");
		failToStart(database, "--test.table=events", "--postlog.slot.name=no_key", "--postlog.publication.name=no_key");
		assertThat(output).contains(
				"Listener 'Orders.onOrder' reads table public.events, which has no usable replica identity "
						+ "(no primary key (REPLICA IDENTITY DEFAULT))",
				"PostgreSQL would refuse the application's own UPDATE and DELETE",
				"ALTER TABLE \"public\".\"events\" ADD PRIMARY KEY (...)",
				"ALTER TABLE \"public\".\"events\" REPLICA IDENTITY FULL");
		database.execute("UPDATE events SET payload = 'still works'");
	}

	@Test
	void recordComponentWithoutColumnFailsStartUpNamingListenerTableAndComponent(PostgresDatabase database,
			CapturedOutput output) {
		database.execute("DROP TABLE IF EXISTS lines",
				"CREATE TABLE lines (line_no int PRIMARY KEY, amount numeric, note text)");
		failToStart(RecordApplication.class, database, "--postlog.slot.name=unbound",
				"--postlog.publication.name=unbound");
		assertThat(output).contains(
				"Listener 'Lines.onLine' cannot bind table public.lines to " + Line.class.getName()
						+ ": component 'discount' matches no column (columns: line_no, amount, note)",
				"Record listeners are bound strictly");
	}

	@Test
	void primitiveComponentAbsentFromDeleteImagesFailsStartUp(PostgresDatabase database, CapturedOutput output) {
		database.execute("DROP TABLE IF EXISTS lines", "CREATE TABLE lines (line_no int PRIMARY KEY, "
				+ "amount numeric NOT NULL, note text, discount int NOT NULL)");
		failToStart(RecordApplication.class, database, "--postlog.slot.name=delete_image",
				"--postlog.publication.name=delete_image");
		assertThat(output).contains("Listener 'Lines.onLine' cannot bind table public.lines to " + Line.class.getName()
				+ ": component 'discount' is a primitive int but column 'discount' is absent "
				+ "from DELETE images, which carry only the replica identity columns (line_no)");
	}

	@Test
	void missingCheckpointTableThatMayNotBeCreatedExplainsTheDdl(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)");
		failToStart(database, "--postlog.slot.name=no_checkpoint", "--postlog.checkpoint.store=jdbc",
				"--postlog.checkpoint.table=absent_checkpoint", "--postlog.checkpoint.create-table=false");
		assertThat(output).contains("postlog.checkpoint.store=jdbc could not set up its checkpoint",
				"absent_checkpoint", "CREATE TABLE IF NOT EXISTS \"absent_checkpoint\" (slot_name text PRIMARY KEY",
				"grant the application's role SELECT, INSERT and UPDATE");
		assertThat(slotExists(database, "no_checkpoint")).as("the slot is not created before the check").isFalse();
	}

	private static boolean slotExists(PostgresDatabase database, String slot) {
		try (java.sql.Connection connection = database.connect();
				java.sql.PreparedStatement statement = connection
					.prepareStatement("SELECT 1 FROM pg_replication_slots WHERE slot_name = ?")) {
			statement.setString(1, slot);
			try (java.sql.ResultSet row = statement.executeQuery()) {
				return row.next();
			}
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void startUpWarningsAreLoggedOnceWithTheirFix(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)");
		SpringApplication application = new SpringApplication(BrokenApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application
			.run("--spring.datasource.url=" + database.jdbcUrl(), "--spring.datasource.username=postgres",
					"--spring.main.banner-mode=off", "--postlog.slot.name=warned")
			.close();
		String warning = (database.serverVersion() >= 130000)
				? "max_slot_wal_keep_size is -1: a replication slot nobody reads retains WAL without limit"
				: "cannot bound the WAL a replication slot retains";
		assertThat(output.getOut().split(java.util.regex.Pattern.quote(warning), -1)).hasSize(2);
		assertThat(output).contains("WARN", (database.serverVersion() >= 130000)
				? "Set max_slot_wal_keep_size to the WAL you can afford on disk" : "Alert on postlog.slot.retained");
	}

	private static long count(PostgresDatabase database, String sql) {
		try (java.sql.Connection connection = database.connect();
				java.sql.Statement statement = connection.createStatement();
				java.sql.ResultSet row = statement.executeQuery(sql)) {
			row.next();
			return row.getLong(1);
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void failToStart(PostgresDatabase database, String... extra) {
		failToStart(BrokenApplication.class, database, extra);
	}

	private static void failToStart(Class<?> source, PostgresDatabase database, String... extra) {
		SpringApplication application = new SpringApplication(source);
		application.setWebApplicationType(WebApplicationType.NONE);
		List<String> args = new ArrayList<>(
				List.of("--spring.datasource.url=" + database.jdbcUrl(), "--spring.main.banner-mode=off"));
		args.addAll(List.of(extra));
		if (args.stream().noneMatch((arg) -> arg.startsWith("--spring.datasource.username="))) {
			args.add("--spring.datasource.username=postgres");
		}
		assertThatException().isThrownBy(() -> application.run(args.toArray(String[]::new)).close());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class BrokenApplication {

		@Bean
		Orders orders() {
			return new Orders();
		}

	}

	static class Orders {

		@PgChangeListener(tables = "${test.table:orders}")
		void onOrder(io.postlog.Change change) {
		}

	}

	record Line(int lineNo, java.math.BigDecimal amount, String note, int discount) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RecordApplication {

		@Bean
		Lines lines() {
			return new Lines();
		}

	}

	static class Lines {

		@PgChangeListener(tables = "lines")
		void onLine(Line line) {
		}

	}

}
