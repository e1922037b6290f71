package io.postlog.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import io.postlog.Change;
import io.postlog.consumer.ConsumerState;
import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 * The server, one of its own, is stopped for 20 s while a writer commits: every health
 * call answers within a second with {@code RETRYING} and the cause, the endpoint answers
 * 200 with its server sections {@code unavailable}, streaming resumes within 10 s of the
 * server accepting connections again, and every committed id is delivered. The
 * application keeps Hikari's default 30 s connection timeout, which a health call that
 * read the server would wait out.
 */
class DatabaseOutageIntegrationTests {

	private static final Logger logger = LoggerFactory.getLogger(DatabaseOutageIntegrationTests.class);

	private static final Duration OUTAGE = Duration.ofSeconds(20);

	private static final Duration HEALTH_BOUND = Duration.ofSeconds(1);

	private static final Duration RESUME_BOUND = Duration.ofSeconds(10);

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@Test
	void healthAnswersAtOnceDuringAnOutageAndStreamingResumesWithinSecondsLosingNothing() throws Exception {
		try (EmbeddedPostgresServer server = EmbeddedPostgresServer.builder().start()) {
			PostgresDatabase database = server.createDatabase();
			database.execute("CREATE TABLE outage_orders (id int PRIMARY KEY)");
			try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(OutageApplication.class,
					database, "postlog.slot.name=outage", "postlog.tables=outage_orders",
					"postlog.health.poll-interval=1s"); Writer writer = new Writer(database)) {
				Received received = context.getBean(Received.class);
				PostlogConsumerGroup group = context.getBean(PostlogListenerRegistry.class).groups().get(0);
				writer.start();
				await().atMost(Duration.ofSeconds(30)).until(() -> received.ids.size() >= 20);
				assertThat(group.state()).isEqualTo(ConsumerState.RUNNING);
				// The first request of each path initialises Spring MVC and the endpoint:
				// made before the outage so that the outage's calls measure only postlog.
				assertThat(get(context, "/actuator/health/postlog/default").response().statusCode()).isEqualTo(200);
				assertThat(get(context, "/actuator/postlog").response().statusCode()).isEqualTo(200);

				server.stop();
				long stoppedAt = System.nanoTime();
				List<Long> healthMillis = new ArrayList<>();
				List<Long> endpointMillis = new ArrayList<>();
				int retryingPolls = 0;
				while (System.nanoTime() - stoppedAt < OUTAGE.toNanos()) {
					Timed health = get(context, "/actuator/health/postlog/default");
					healthMillis.add(health.millis());
					JsonNode details = json(health.response().body()).get("details");
					if (!details.get("state").asString().equals("RUNNING")) {
						// RUNNING only until the consumer has seen its connection end.
						assertThat(details.get("state").asString()).isEqualTo("RETRYING");
						assertThat(details.get("cause").asString()).isNotBlank();
						retryingPolls++;
					}
					if (healthMillis.size() % 4 == 0) {
						Timed endpoint = get(context, "/actuator/postlog");
						endpointMillis.add(endpoint.millis());
						assertThat(endpoint.response().statusCode()).isEqualTo(200);
						JsonNode described = json(endpoint.response().body());
						if (System.nanoTime() - stoppedAt > Duration.ofSeconds(3).toNanos()) {
							JsonNode consumer = described.get("consumers").get(0);
							assertThat(consumer.get("slot").get("status").asString()).isEqualTo("unavailable");
							assertThat(consumer.get("slot").get("reason").asString())
								.contains("Could not read replication slot 'outage'");
							assertThat(consumer.get("slot").get("lastContact").asString()).isNotBlank();
							assertThat(consumer.get("publication").get("status").asString()).isEqualTo("unavailable");
							assertThat(described.get("server").get("status").asString()).isEqualTo("unavailable");
						}
					}
					Thread.sleep(250);
				}
				JsonNode during = json(get(context, "/actuator/health/postlog/default").response().body());
				logger.info(
						"[measure] outage {} s: {} health calls, slowest {} ms; {} endpoint calls, slowest {} ms; "
								+ "health during the outage: {}",
						OUTAGE.toSeconds(), healthMillis.size(), max(healthMillis), endpointMillis.size(),
						max(endpointMillis), during);
				assertThat(healthMillis).allSatisfy((millis) -> assertThat(millis).isLessThan(HEALTH_BOUND.toMillis()));
				assertThat(endpointMillis)
					.allSatisfy((millis) -> assertThat(millis).isLessThan(HEALTH_BOUND.toMillis()));
				assertThat(retryingPolls).isGreaterThan(healthMillis.size() / 2);
				assertThat(during.get("details").get("reading").get("status").asString()).isEqualTo("unavailable");
				assertThat(during.get("details").get("lastContact").asString()).isNotBlank();
				int committedDuringOutage = writer.committed().size();

				server.startAgain();
				long restartedAt = System.nanoTime();
				await().atMost(RESUME_BOUND.plusSeconds(20))
					.pollInterval(Duration.ofMillis(20))
					.until(() -> group.state() == ConsumerState.RUNNING);
				long runningAfter = System.nanoTime() - restartedAt;
				await().atMost(RESUME_BOUND.plusSeconds(20))
					.pollInterval(Duration.ofMillis(20))
					.until(() -> writer.firstCommittedAfter(restartedAt) != null);
				int next = writer.firstCommittedAfter(restartedAt);
				await().atMost(RESUME_BOUND.plusSeconds(20))
					.pollInterval(Duration.ofMillis(20))
					.until(() -> received.ids.containsKey(next));
				long deliveredAfter = received.ids.get(next) - restartedAt;
				logger.info(
						"[measure] after the restart: consumer RUNNING in {} ms, id {} (the first committed after "
								+ "the restart, {} ms after it) delivered {} ms after the restart",
						runningAfter / 1_000_000, next, (writer.committedAt.get(next) - restartedAt) / 1_000_000,
						deliveredAfter / 1_000_000);
				assertThat(Duration.ofNanos(runningAfter)).isLessThan(RESUME_BOUND);
				assertThat(Duration.ofNanos(deliveredAfter)).isLessThan(RESUME_BOUND);

				await().atMost(Duration.ofSeconds(10))
					.until(() -> writer.committed().size() > committedDuringOutage + 20);
				writer.close();
				Set<Integer> committed = writer.committed();
				await().atMost(Duration.ofSeconds(30)).until(() -> received.ids.keySet().containsAll(committed));
				logger.info("[measure] {} ids committed, {} received, none lost", committed.size(),
						received.ids.size());
				await().atMost(Duration.ofSeconds(10))
					.until(() -> json(get(context, "/actuator/health/postlog/default").response().body()).get("status")
						.asString()
						.equals("UP"));
			}
		}
	}

	private Timed get(ConfigurableApplicationContext context, String path) throws Exception {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(60))
			.build();
		long start = System.nanoTime();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		return new Timed(response, (System.nanoTime() - start) / 1_000_000);
	}

	private static JsonNode json(String body) {
		return JsonMapper.builder().build().readTree(body);
	}

	private static long max(List<Long> values) {
		return values.stream().mapToLong(Long::longValue).max().orElse(-1);
	}

	record Timed(HttpResponse<String> response, long millis) {
	}

	/**
	 * Inserts one id after another, each retried until it commits; records the ids that
	 * committed and when.
	 */
	static final class Writer implements AutoCloseable {

		private final PostgresDatabase database;

		/**
		 * Each committed id with the time its commit returned
		 * ({@link System#nanoTime()}).
		 */
		final Map<Integer, Long> committedAt = new ConcurrentHashMap<>();

		private final Thread thread;

		private volatile boolean stopped;

		Writer(PostgresDatabase database) {
			this.database = database;
			this.thread = new Thread(this::run, "outage-writer");
		}

		void start() {
			this.thread.start();
		}

		Set<Integer> committed() {
			return new TreeSet<>(this.committedAt.keySet());
		}

		Integer firstCommittedAfter(long nanos) {
			return this.committedAt.entrySet()
				.stream()
				.filter((entry) -> entry.getValue() > nanos)
				.map(Map.Entry::getKey)
				.min(Integer::compare)
				.orElse(null);
		}

		private void run() {
			int id = 1;
			Connection connection = null;
			while (!this.stopped) {
				try {
					if (connection == null) {
						connection = DriverManager.getConnection(this.database.jdbcUrl() + "?connectTimeout=2",
								this.database.username(), "");
					}
					try (Statement statement = connection.createStatement()) {
						// A commit whose answer was lost is found by the retry.
						statement.execute("INSERT INTO outage_orders VALUES (" + id + ") ON CONFLICT DO NOTHING");
					}
					this.committedAt.put(id, System.nanoTime());
					id++;
					Thread.sleep(50);
				}
				catch (SQLException ex) {
					close(connection);
					connection = null;
					sleep(200);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
			}
			close(connection);
		}

		private static void close(Connection connection) {
			if (connection == null) {
				return;
			}
			try {
				connection.close();
			}
			catch (SQLException ex) {
				logger.debug("Writer's connection did not close: {}", ex.getSQLState());
			}
		}

		private static void sleep(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		@Override
		public void close() throws InterruptedException {
			this.stopped = true;
			this.thread.join(10_000);
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class OutageApplication {

		@Bean
		Received received() {
			return new Received();
		}

	}

	static class Received {

		/** Each id with the time it first arrived ({@link System#nanoTime()}). */
		final Map<Integer, Long> ids = new ConcurrentHashMap<>();

		@PgChangeListener(tables = "outage_orders")
		void onOrder(Change change) {
			this.ids.putIfAbsent(change.after().get("id", Integer.class), System.nanoTime());
		}

	}

}
