package io.postlog.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.MeterRegistry;
import io.postlog.Change;
import io.postlog.Row;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.SubscriptionState;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What happens when a listener keeps failing, on a real server: the log line of each
 * attempt, the last error on the endpoint and health, the event, and the outcome of each
 * error handler, with a planted value in the poison row that no postlog log line shows.
 */
@PostgresTest
@ExtendWith(OutputCaptureExtension.class)
class ListenerFailuresIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	/** A value that must appear in no postlog log line. */
	private static final String PLANTED = "PLANTED-7d1e4";

	private final HttpClient http = HttpClient.newHttpClient();

	@BeforeEach
	void reset(PostgresDatabase database) {
		database.execute("CREATE TABLE IF NOT EXISTS payments (id int PRIMARY KEY, card text NOT NULL)");
		Payments.received.clear();
		Payments.events.clear();
		Payments.handled.clear();
	}

	@Test
	void throwingListenerIsLoggedOncePerAttemptAndItsErrorShownOnTheEndpointAndHealth(PostgresDatabase database,
			CapturedOutput output) throws Exception {
		try (ConfigurableApplicationContext context = run(database, "postlog.slot.name=stop_slot",
				"postlog.publication.name=stop_pub")) {
			database.execute("INSERT INTO payments VALUES (1, '" + PLANTED + "')");
			PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
			PostlogConsumerGroup group = registry.group("");
			await().atMost(TIMEOUT)
				.until(() -> registry.listener("Payments.onPayment").state() == SubscriptionState.STOPPED);
			assertThat(group.state()).isEqualTo(ConsumerState.RUNNING);

			List<String> attempts = lines(output, "Subscription 'Payments.onPayment' failed on change 0 of transaction")
				.stream()
				.filter((line) -> line.contains("), attempt "))
				.toList();
			assertThat(attempts).hasSize(3);
			assertThat(attempts.get(0)).contains("(INSERT on public.payments, commit LSN ", "change id stop_slot/",
					"attempt 1 of 3; retrying in 20 ms");
			assertThat(attempts.get(2)).contains("attempt 3 of 3; its retries ran out");
			assertThat(output).contains("java.lang.IllegalStateException: card declined for " + PLANTED,
					"\tat io.postlog.spring.ListenerFailuresIntegrationTests$Payments.onPayment(");
			assertThat(output).contains(
					"Subscription 'Payments.onPayment' stopped: Subscription 'Payments.onPayment' "
							+ "failed on change 0 of transaction",
					"; the others go on, and the slot is confirmed no further than ");
			assertNoPostlogLineShows(output, PLANTED);

			assertThat(get(context, "/actuator/postlog").body()).doesNotContain(PLANTED);
			JsonNode listener = json(context, "/actuator/postlog").get("consumers").get(0).get("listeners").get(0);
			JsonNode error = listener.get("lastError");
			assertThat(error.get("exception").asString()).isEqualTo(IllegalStateException.class.getName());
			// The listener's own message only with
			// postlog.endpoint.show-exception-messages.
			assertThat(error.has("message") && !error.get("message").isNull()).isFalse();
			assertThat(error.get("table").asString()).isEqualTo("public.payments");
			assertThat(error.get("operation").asString()).isEqualTo("INSERT");
			assertThat(error.get("attempt").asInt()).isEqualTo(3);
			assertThat(error.get("outcome").asString()).isEqualTo("STOPPED");
			assertThat(error.get("changeId").asString()).startsWith("stop_slot/");

			HttpResponse<String> health = get(context, "/actuator/health/postlog/default");
			assertThat(health.statusCode()).isEqualTo(503);
			assertThat(health.body())
				.contains("\"state\":\"RUNNING\"", "listener 'Payments.onPayment' was stopped by its error handler")
				.doesNotContain(PLANTED);
			assertThat(Payments.events).singleElement().satisfies((event) -> {
				assertThat(event.outcome()).isEqualTo(PostlogListenerFailedEvent.Outcome.STOPPED);
				assertThat(event.listenerId()).isEqualTo("Payments.onPayment");
				assertThat(event.slotName()).isEqualTo("stop_slot");
				assertThat(event.attempts()).isEqualTo(3);
				assertThat(event.exception())
					.hasMessageStartingWith(
							"Listener 'Payments.onPayment' failed on INSERT on public.payments (commit LSN ")
					.hasMessageNotContaining(PLANTED)
					.cause()
					.isInstanceOf(IllegalStateException.class);
			});
		}
	}

	@Test
	void skipGoesOnWithLaterChangesAndCountsTheSkippedOne(PostgresDatabase database, CapturedOutput output)
			throws Exception {
		try (ConfigurableApplicationContext context = run(database, "postlog.slot.name=skip_slot",
				"postlog.publication.name=skip_pub", "postlog.listener.error-handler=skip")) {
			database.execute("INSERT INTO payments VALUES (10, '" + PLANTED + "')",
					"INSERT INTO payments VALUES (11, 'fine')");
			CaughtUp.await(context, TIMEOUT);
			assertThat(Payments.received).extracting((row) -> row.get("id")).containsExactly(10, 10, 10, 11);
			assertThat(context.getBean(MeterRegistry.class)
				.get("postlog.listener.skipped")
				.tags("listener", "Payments.onPayment", "slot", "skip_slot", "group", "default")
				.counter()
				.count()).isEqualTo(1);
			assertThat(Payments.events).extracting(PostlogListenerFailedEvent::outcome)
				.containsExactly(PostlogListenerFailedEvent.Outcome.SKIPPED);
			assertThat(output).contains("Subscription 'Payments.onPayment' skipped what it failed on: Subscription "
					+ "'Payments.onPayment' failed on change 0 of transaction");
			assertThat(context.getBean(PostlogListenerRegistry.class).state()).isEqualTo(ConsumerState.RUNNING);
			assertNoPostlogLineShows(output, PLANTED);
		}
	}

	@Test
	void deadLetterStoresTheChangeAsJsonAndGoesOn(PostgresDatabase database, CapturedOutput output) throws Exception {
		database.execute("DROP TABLE IF EXISTS postlog_dead_letter");
		try (ConfigurableApplicationContext context = run(database, "postlog.slot.name=dead_slot",
				"postlog.publication.name=dead_pub", "postlog.listener.error-handler=dead-letter")) {
			database.execute("INSERT INTO payments VALUES (20, '" + PLANTED + "')",
					"INSERT INTO payments VALUES (21, 'fine')");
			CaughtUp.await(context, TIMEOUT);
			assertThat(Payments.received).extracting((row) -> row.get("id")).containsExactly(20, 20, 20, 21);
			try (Connection connection = database.connect();
					Statement statement = connection.createStatement();
					ResultSet row = statement.executeQuery("SELECT slot_name, listener_id, change_id, table_name, "
							+ "operation, commit_lsn::text, change_key::text, change_row::text, exception_class, "
							+ "exception_message, failed_at IS NOT NULL FROM postlog_dead_letter")) {
				assertThat(row.next()).isTrue();
				assertThat(row.getString(1)).isEqualTo("dead_slot");
				assertThat(row.getString(2)).isEqualTo("Payments.onPayment");
				assertThat(row.getString(3)).startsWith("dead_slot/").endsWith("/0");
				assertThat(row.getString(4)).isEqualTo("public.payments");
				assertThat(row.getString(5)).isEqualTo("INSERT");
				assertThat(row.getString(3)).contains(row.getString(6));
				assertThat(row.getString(7)).isEqualTo("{\"id\": 20}");
				assertThat(row.getString(8)).isEqualTo("{\"id\": 20, \"card\": \"" + PLANTED + "\"}");
				assertThat(row.getString(9)).isEqualTo(IllegalStateException.class.getName());
				assertThat(row.getString(10)).isEqualTo("card declined for " + PLANTED);
				assertThat(row.getBoolean(11)).isTrue();
				assertThat(row.next()).isFalse();
			}
			assertThat(Payments.events).extracting(PostlogListenerFailedEvent::outcome)
				.containsExactly(PostlogListenerFailedEvent.Outcome.DEAD_LETTERED);
			assertThat(context.getBean(MeterRegistry.class).get("postlog.listener.skipped").counter().count())
				.isEqualTo(1);
			assertThat(output).contains("Listener 'Payments.onPayment' dead-lettered change dead_slot/");
			assertNoPostlogLineShows(output, PLANTED);
		}
	}

	@Test
	void anErrorHandlerBeanNamedByTheListenerDecidesForItAlone(PostgresDatabase database) throws Exception {
		try (ConfigurableApplicationContext context = run(HandledApplication.class, database,
				"postlog.slot.name=handled_slot", "postlog.publication.name=handled_pub")) {
			database.execute("INSERT INTO payments VALUES (30, 'x')", "INSERT INTO payments VALUES (31, 'fine')");
			CaughtUp.await(context, TIMEOUT);
			assertThat(Payments.handled).singleElement()
				.satisfies((change) -> assertThat(change.after().get("id")).isEqualTo(30));
			assertThat(Payments.received).extracting((row) -> row.get("id")).containsExactly(30, 30, 30, 31);
			assertThat(Payments.events).extracting(PostlogListenerFailedEvent::outcome)
				.containsExactly(PostlogListenerFailedEvent.Outcome.SKIPPED);
		}
	}

	static void assertNoPostlogLineShows(CapturedOutput output, String value) {
		// The listener's own exception (its message and stack trace) is the listener's
		// text; every other line is postlog's or Spring's.
		List<String> lines = Arrays.asList(output.getAll().split("\\R"));
		List<String> offending = new ArrayList<>();
		for (String line : lines) {
			if (line.contains(value) && !line.startsWith("java.lang.IllegalStateException: card declined for ")
					&& !line.startsWith("Caused by: java.lang.IllegalStateException: card declined for ")) {
				offending.add(line);
			}
		}
		assertThat(offending).isEmpty();
	}

	private static List<String> lines(CapturedOutput output, String text) {
		return Arrays.stream(output.getAll().split("\\R")).filter((line) -> line.contains(text)).toList();
	}

	private JsonNode json(ConfigurableApplicationContext context, String path) throws Exception {
		return JsonMapper.builder().build().readTree(get(context, path).body());
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private static ConfigurableApplicationContext run(PostgresDatabase database, String... properties) {
		return run(PaymentsApplication.class, database, properties);
	}

	private static ConfigurableApplicationContext run(Class<?> application, PostgresDatabase database,
			String... properties) {
		List<String> all = new ArrayList<>(List.of(properties));
		all.add("postlog.retry.initial-interval=20ms");
		all.add("postlog.retry.max-attempts=3");
		return PostlogListenersIntegrationTests.run(application, database, all.toArray(String[]::new));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class PaymentsApplication {

		@Bean
		Payments payments() {
			return new Payments();
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class HandledApplication {

		@Bean
		HandledPayments payments() {
			return new HandledPayments();
		}

		@Bean
		PgListenerErrorHandler recordingHandler() {
			return (change, exception) -> Payments.handled.add(change);
		}

	}

	static class Payments {

		static final List<Row> received = new CopyOnWriteArrayList<>();

		static final List<PostlogListenerFailedEvent> events = new CopyOnWriteArrayList<>();

		static final List<Change> handled = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "payments")
		void onPayment(Row row) {
			received.add(row);
			if (!"fine".equals(row.get("card"))) {
				throw new IllegalStateException("card declined for " + row.get("card"));
			}
		}

		@EventListener
		void onFailure(PostlogListenerFailedEvent event) {
			events.add(event);
		}

	}

	static class HandledPayments extends Payments {

		@Override
		@PgChangeListener(tables = "payments", errorHandler = "recordingHandler")
		void onPayment(Row row) {
			super.onPayment(row);
		}

	}

}
