package io.postlog.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.postlog.Change;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A value planted in a row, on paths where the server's text quotes it (the application's
 * data source sends the server's {@code DETAIL}, as pgjdbc does by default): a
 * dead-letter insert the table rejects, and a sink transaction whose commit a unique key
 * refuses. The listeners' own exceptions quote nothing, so any appearance of the value is
 * postlog's: it reaches no log line, the endpoint or health.
 */
@PostgresTest
@ExtendWith(OutputCaptureExtension.class)
class ValueFreeApplicationIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private static final String PLANTED = "PLANTED-vf-90b2";

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void deadLetterInsertTheTableRejectsShowsThePlantedValueNowhere(PostgresDatabase database, CapturedOutput output)
			throws Exception {
		// The handler's own table, with a check that refuses every insert: the server's
		// DETAIL then lists the failing row, the change's JSON with the planted value.
		database.execute("CREATE TABLE IF NOT EXISTS refunds (id int PRIMARY KEY, card text NOT NULL)",
				PostlogDeadLetterErrorHandler.DDL.replace("failed_at timestamptz",
						"CHECK (exception_class = 'never'),\n\tfailed_at timestamptz"));
		try (ConfigurableApplicationContext context = run(database, "postlog.slot.name=vf_dead_slot",
				"postlog.publication.name=vf_dead_pub", "postlog.listener.error-handler=dead-letter",
				"test.table=refunds")) {
			database.execute("INSERT INTO refunds VALUES (1, '" + PLANTED + "')");
			await().atMost(TIMEOUT).until(() -> output.getAll().contains("could not dead-letter change vf_dead_slot/"));
			assertThat(output.getAll()).contains("SQLState 23514");
			assertShownNowhere(context, output);
		}
	}

	@Test
	void sinkCommitAUniqueKeyRefusesShowsThePlantedValueNowhere(PostgresDatabase database, CapturedOutput output)
			throws Exception {
		// Checked at commit: the violation is the sink commit's, postlog's own.
		database.execute("CREATE TABLE IF NOT EXISTS signups (id int PRIMARY KEY, card text NOT NULL)",
				"CREATE TABLE IF NOT EXISTS emails (email text UNIQUE DEFERRABLE INITIALLY DEFERRED)",
				"INSERT INTO emails VALUES ('" + PLANTED + "')");
		try (ConfigurableApplicationContext context = run(database, "postlog.slot.name=vf_sink_slot",
				"postlog.publication.name=vf_sink_pub", "postlog.checkpoint.store=jdbc", "test.table=signups")) {
			database.execute("INSERT INTO signups VALUES (1, '" + PLANTED + "')");
			await().atMost(TIMEOUT)
				.until(() -> output.getAll().contains("Committing the sink transaction of slot vf_sink_slot"));
			assertShownNowhere(context, output);
		}
	}

	private void assertShownNowhere(ConfigurableApplicationContext context, CapturedOutput output) throws Exception {
		List<String> offending = new ArrayList<>();
		for (String line : output.getAll().split("\\R")) {
			if (line.contains(PLANTED)) {
				offending.add(line);
			}
		}
		assertThat(offending).isEmpty();
		HttpResponse<String> endpoint = get(context, "/actuator/postlog");
		assertThat(endpoint.statusCode()).isEqualTo(200);
		assertThat(endpoint.body()).doesNotContain(PLANTED);
		assertThat(get(context, "/actuator/health").body()).doesNotContain(PLANTED);
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private static ConfigurableApplicationContext run(PostgresDatabase database, String... properties) {
		List<String> all = new ArrayList<>(List.of(properties));
		all.add("postlog.retry.initial-interval=20ms");
		all.add("postlog.retry.max-attempts=2");
		return PostlogListenersIntegrationTests.run(SinkApplication.class, database, all.toArray(String[]::new));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class SinkApplication {

		@Bean
		Sink sink(JdbcTemplate jdbc) {
			return new Sink(jdbc);
		}

	}

	static class Sink {

		private final JdbcTemplate jdbc;

		Sink(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@PgChangeListener(tables = "${test.table}")
		void onChange(Change change) {
			if (change.table().name().equals("signups")) {
				// Inside the sink transaction under checkpoint.store=jdbc.
				this.jdbc.update("INSERT INTO emails VALUES (?)", change.after().get("card"));
				return;
			}
			throw new IllegalStateException("refund refused");
		}

	}

}
