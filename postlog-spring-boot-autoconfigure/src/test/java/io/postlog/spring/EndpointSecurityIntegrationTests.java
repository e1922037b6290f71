package io.postlog.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.SubscriptionState;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code postlog} endpoint's defaults over HTTP, in a whole application on a real
 * server: its write operations are not mapped unless
 * {@code management.endpoint.postlog.access=unrestricted}; past
 * {@code postlog.snapshot.max-queued-backfills} a backfill is refused with 429 and a body
 * that says why; a listener's own exception message (holding a planted value) reaches
 * neither the endpoint nor health unless
 * {@code postlog.endpoint.show-exception-messages}.
 */
@PostgresTest
class EndpointSecurityIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofMinutes(1);

	private static final String PLANTED = "PLANTED-3c9b1";

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void aBackfillCannotBeStartedOverHttpByDefault(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE IF NOT EXISTS sec_rows (id int PRIMARY KEY, v text)",
				"INSERT INTO sec_rows SELECT g, 'v' FROM generate_series(1, 10) g ON CONFLICT DO NOTHING");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(RowsApplication.class,
				database, "postlog.slot.name=sec_readonly", "postlog.publication.name=sec_readonly")) {
			PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
			await().atMost(TIMEOUT).until(() -> registry.state() == ConsumerState.RUNNING);
			assertThat(get(context, "/actuator/postlog").statusCode()).isEqualTo(200);
			HttpResponse<String> refused = post(context, "/actuator/postlog/backfill", "{\"tables\":\"sec_rows\"}");
			// Not mapped: Spring MVC finds no handler for the path.
			assertThat(refused.statusCode()).as("%s", refused.body()).isEqualTo(404);
			assertThat(registry.group(PostlogConsumerGroup.DEFAULT).backfills()).isEmpty();
			assertThat(recordedBackfills(database, "sec_readonly")).isZero();
		}
	}

	@Test
	void withUnrestrictedAccessABackfillStartsAndOnePastTheBoundIsRefusedWith429(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE IF NOT EXISTS sec_rows (id int PRIMARY KEY, v text)",
				"INSERT INTO sec_rows SELECT g, 'v' FROM generate_series(1, 10) g ON CONFLICT DO NOTHING");
		Rows.hold = new CountDownLatch(1);
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(RowsApplication.class,
				database, "postlog.slot.name=sec_bounded", "postlog.publication.name=sec_bounded",
				"management.endpoint.postlog.access=unrestricted", "postlog.snapshot.max-queued-backfills=1")) {
			try {
				PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
				await().atMost(TIMEOUT).until(() -> registry.state() == ConsumerState.RUNNING);
				HttpResponse<String> started = post(context, "/actuator/postlog/backfill", "{\"tables\":\"sec_rows\"}");
				assertThat(started.statusCode()).as("%s", started.body()).isEqualTo(200);
				assertThat(json(started).get("id").asString()).isNotEmpty();
				HttpResponse<String> refused = post(context, "/actuator/postlog/backfill", "{\"tables\":\"sec_rows\"}");
				assertThat(refused.statusCode()).as("%s", refused.body()).isEqualTo(429);
				JsonNode body = json(refused);
				assertThat(body.get("refused").asString())
					.isEqualTo("Backfill refused: the consumer of slot sec_bounded already holds 1 unfinished "
							+ "backfills (pending or running), the most it queues; ask again once one finished, "
							+ "or cancel one");
				assertThat(body.get("group").asString()).isEqualTo("default");
				assertThat(body.get("maxQueued").asInt()).isEqualTo(1);
				assertThat(registry.group(PostlogConsumerGroup.DEFAULT).backfills()).hasSize(1);
				assertThat(recordedBackfills(database, "sec_bounded")).isEqualTo(1);
			}
			finally {
				Rows.hold.countDown();
			}
		}
	}

	@Test
	void aListenersExceptionMessageReachesNeitherEndpointNorHealthByDefault(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE IF NOT EXISTS sec_cards (id int PRIMARY KEY, card text NOT NULL)");
		try (ConfigurableApplicationContext context = run(database, "sec_hidden")) {
			database.execute("INSERT INTO sec_cards VALUES (1, '" + PLANTED + "')");
			PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
			await().atMost(TIMEOUT).until(() -> registry.listener("Cards.onCard").state() == SubscriptionState.STOPPED);
			HttpResponse<String> endpoint = get(context, "/actuator/postlog");
			assertThat(endpoint.body()).doesNotContain(PLANTED);
			JsonNode consumer = json(endpoint).get("consumers").get(0);
			assertThat(consumer.get("state").asString()).isEqualTo("RUNNING");
			JsonNode error = consumer.get("listeners").get(0).get("lastError");
			assertThat(error.get("exception").asString()).isEqualTo(IllegalStateException.class.getName());
			assertThat(error.has("message") && !error.get("message").isNull()).isFalse();
			assertThat(error.get("table").asString()).isEqualTo("public.sec_cards");
			assertThat(error.get("outcome").asString()).isEqualTo("STOPPED");
			HttpResponse<String> health = get(context, "/actuator/health/postlog/default");
			assertThat(health.body()).contains("listener 'Cards.onCard' was stopped by its error handler")
				.doesNotContain(PLANTED);
		}
	}

	@Test
	void aListenersExceptionMessageIsShownWhenAskedFor(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE IF NOT EXISTS sec_cards (id int PRIMARY KEY, card text NOT NULL)");
		try (ConfigurableApplicationContext context = run(database, "sec_shown",
				"postlog.endpoint.show-exception-messages=true")) {
			database.execute("INSERT INTO sec_cards VALUES (2, '" + PLANTED + "')");
			PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
			await().atMost(TIMEOUT).until(() -> registry.listener("Cards.onCard").state() == SubscriptionState.STOPPED);
			JsonNode error = json(get(context, "/actuator/postlog")).get("consumers")
				.get(0)
				.get("listeners")
				.get(0)
				.get("lastError");
			assertThat(error.get("message").asString()).isEqualTo("card declined for " + PLANTED);
			// Health never shows it.
			assertThat(get(context, "/actuator/health/postlog/default").body()).doesNotContain(PLANTED);
		}
	}

	private static ConfigurableApplicationContext run(PostgresDatabase database, String slot, String... more) {
		String[] properties = new String[more.length + 4];
		properties[0] = "postlog.slot.name=" + slot;
		properties[1] = "postlog.publication.name=" + slot;
		properties[2] = "postlog.retry.initial-interval=20ms";
		properties[3] = "postlog.retry.max-attempts=2";
		System.arraycopy(more, 0, properties, 4, more.length);
		return PostlogListenersIntegrationTests.run(CardsApplication.class, database, properties);
	}

	private static long recordedBackfills(PostgresDatabase database, String slot) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT CASE WHEN to_regclass('postlog_backfill') IS NULL "
						+ "THEN 0 ELSE (SELECT count(*) FROM postlog_backfill WHERE slot_name = '" + slot + "') END")) {
			row.next();
			return row.getLong(1);
		}
	}

	private JsonNode json(HttpResponse<String> response) {
		return JsonMapper.builder().build().readTree(response.body());
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(context, path)).build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(ConfigurableApplicationContext context, String path, String body)
			throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(context, path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static URI uri(ConfigurableApplicationContext context, String path) {
		return URI
			.create("http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort() + path);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RowsApplication {

		@Bean
		Rows rows() {
			return new Rows();
		}

	}

	static class Rows {

		static volatile CountDownLatch hold = new CountDownLatch(0);

		@PgChangeListener(tables = "sec_rows")
		void onRow(Change change) throws InterruptedException {
			if (change.operation() == Operation.SNAPSHOT) {
				// Keeps a backfill unfinished while the test asks for another.
				hold.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			}
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class CardsApplication {

		@Bean
		Cards cards() {
			return new Cards();
		}

	}

	static class Cards {

		@PgChangeListener(tables = "sec_cards")
		void onCard(Row row) {
			throw new IllegalStateException("card declined for " + row.get("card"));
		}

	}

}
