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
	void badIdentifierExplainsTheRule(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)");
		failToStart(database, "--postlog.slot.name=Bad-Slot");
		assertThat(output).contains("is not a valid identifier", "Bad-Slot", "lower-case letters, digits");
	}

	@Test
	void slotOfAnotherPluginExplainsHowToReplaceIt(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)",
				"SELECT pg_create_logical_replication_slot('decoding_slot', 'test_decoding')");
		failToStart(database, "--postlog.slot.name=decoding_slot");
		assertThat(output).contains("created with another output plugin", "decoding_slot", "pg_drop_replication_slot");
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
				java.sql.ResultSet rows = connection.createStatement()
					.executeQuery("SELECT 1 FROM pg_replication_slots WHERE slot_name = '" + slot + "'")) {
			return rows.next();
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void failToStart(PostgresDatabase database, String... extra) {
		SpringApplication application = new SpringApplication(BrokenApplication.class);
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

		@PgChangeListener(tables = "orders")
		void onOrder(io.postlog.Change change) {
		}

	}

}
