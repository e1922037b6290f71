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
	void tableWithoutReplicaIdentityExplainsTheKeyOrAnInsertOnlyPublication(PostgresDatabase database,
			CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY)",
				"CREATE TABLE IF NOT EXISTS ledger (entry text)");
		failToStart(database, "--postlog.slot.name=keyless", "--postlog.publication.name=keyless_pub",
				"--postlog.tables=orders,ledger");
		assertThat(output).contains("APPLICATION FAILED TO START", "Tables postlog publishes have no usable replica",
				"Publication 'keyless_pub' publishes updates and deletes of [public.ledger]", "REPLICA IDENTITY FULL",
				"WITH (publish = 'insert, truncate')");
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
