package io.postlog.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.consumer.ConsumerState;
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
 * Dead letters in a table of the user's choosing are replayed through the listener that
 * failed them: while the listener still fails, a replay stops at the first one and keeps
 * it; once it is fixed, {@code POST /actuator/postlog/listeners/{id}} with
 * {@code {"action":"replay-dead-letters"}} gives it every dead letter, bound to its
 * record parameter, oldest first, and empties the table. The endpoint refuses the
 * operation without {@code management.endpoint.postlog.access=unrestricted}.
 */
@PostgresTest
class DeadLetterReplayIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofMinutes(1);

	@Test
	void deadLettersInAChosenTableAreReplayedThroughTheirListener(PostgresDatabase database) throws Exception {
		database.execute("CREATE SCHEMA ops", "CREATE TABLE refunds (id int PRIMARY KEY, amount numeric NOT NULL)");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(RefundsApplication.class,
				database, "postlog.slot.name=replay_slot", "postlog.listener.error-handler=dead-letter",
				"postlog.listener.dead-letter-table=ops.failed_changes", "postlog.retry.max-attempts=1",
				"management.endpoint.postlog.access=unrestricted")) {
			Refunds refunds = context.getBean(Refunds.class);
			await().atMost(TIMEOUT)
				.until(() -> context.getBean(PostlogListenerRegistry.class).state() == ConsumerState.RUNNING);
			refunds.failing = true;
			database.execute("INSERT INTO refunds VALUES (1, 10.50)", "INSERT INTO refunds VALUES (2, 20)");
			await().atMost(TIMEOUT).until(() -> count(database) == 2);
			DeadLetters deadLetters = context.getBean(DeadLetters.class);
			DeadLetters.Replay stillFailing = deadLetters.replay("Refunds.onRefund");
			assertThat(stillFailing.replayed()).isZero();
			assertThat(stillFailing.remaining()).isEqualTo(2);
			assertThat(stillFailing.failure()).isEqualTo(IllegalStateException.class.getName());
			assertThat(count(database)).isEqualTo(2);
			refunds.failing = false;
			JsonNode replayed = post(context, "/actuator/postlog/listeners/Refunds.onRefund",
					"{\"action\":\"replay-dead-letters\"}");
			assertThat(replayed.get("replayed").asInt()).isEqualTo(2);
			assertThat(replayed.get("remaining").asInt()).isZero();
			assertThat(refunds.received).containsExactly(new Refund(1, new java.math.BigDecimal("10.50")),
					new Refund(2, new java.math.BigDecimal("20")));
			assertThat(count(database)).isZero();
		}
	}

	private static int count(PostgresDatabase database) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT count(*) FROM ops.failed_changes")) {
			row.next();
			return row.getInt(1);
		}
	}

	private static JsonNode post(ConfigurableApplicationContext context, String path, String body) throws Exception {
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest
				.newBuilder(URI.create(
						"http://localhost:" + ((WebServerApplicationContext) context).getWebServer().getPort() + path))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString(body))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("%s", response.body()).isEqualTo(200);
		return JsonMapper.builder().build().readTree(response.body());
	}

	record Refund(int id, java.math.BigDecimal amount) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RefundsApplication {

		@Bean
		Refunds refunds() {
			return new Refunds();
		}

	}

	static class Refunds {

		final List<Refund> received = new CopyOnWriteArrayList<>();

		volatile boolean failing;

		@PgChangeListener(tables = "refunds", id = "Refunds.onRefund")
		void onRefund(Refund refund) {
			if (this.failing) {
				throw new IllegalStateException("refund system down");
			}
			this.received.add(refund);
		}

	}

}
