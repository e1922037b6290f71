package io.postlog.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.MeterRegistry;
import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Row;
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
 * Groups, lanes and deferred acknowledgements through Spring listeners, on a real server.
 */
@PostgresTest
class ListenerGroupsIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void aGroupWhoseListenerStopsForGoodDoesNotHoldTheOtherGroupsSlot(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE orders (id int PRIMARY KEY, n int)", "CREATE TABLE docs (id int PRIMARY KEY)");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(GroupsApplication.class,
				database, "postlog.slot.name=grp_default", "postlog.publication.name=grp_default",
				"postlog.groups.search.slot.name=grp_search", "postlog.retry.initial-interval=20ms",
				"postlog.retry.max-attempts=2")) {
			PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
			assertThat(registry.groups()).extracting(PostlogConsumerGroup::displayName)
				.containsExactly("default", "search");
			PostlogConsumerGroup search = registry.group("search");
			PostlogConsumerGroup main = registry.group("");
			database.execute("INSERT INTO docs VALUES (1)");
			await().atMost(TIMEOUT)
				.until(() -> !search.failedListeners().isEmpty() && search.state() == ConsumerState.RUNNING);
			// The stopped listener holds its group's slot at the transaction it failed
			// on.
			Lsn searchStuckAt = search.listener(search.failedListeners().get(0)).position();
			assertThat(searchStuckAt).isNotNull();
			Lsn before = confirmedFlush(database, "grp_default");
			for (int i = 0; i < 20; i++) {
				database.execute("INSERT INTO orders VALUES (" + i + ", " + i + ")",
						"INSERT INTO docs VALUES (" + (i + 10) + ")");
			}
			Lsn written = context.getBean(PostlogSlotMonitor.class).currentLsn();
			await().atMost(TIMEOUT).untilAsserted(() -> {
				assertThat(main.ackedLsn()).isGreaterThanOrEqualTo(written);
				assertThat(confirmedFlush(database, "grp_default")).isGreaterThan(before);
			});
			assertThat(Groups.orders).hasSize(20);
			assertThat(main.state()).isEqualTo(ConsumerState.RUNNING);
			assertThat(confirmedFlush(database, "grp_search")).isLessThanOrEqualTo(searchStuckAt);

			JsonNode consumers = JsonMapper.builder()
				.build()
				.readTree(get(context, "/actuator/postlog").body())
				.get("consumers");
			assertThat(consumers.size()).isEqualTo(2);
			assertThat(consumers.get(0).get("group").asString()).isEqualTo("default");
			assertThat(consumers.get(0).get("state").asString()).isEqualTo("RUNNING");
			assertThat(consumers.get(0).get("slot").get("name").asString()).isEqualTo("grp_default");
			assertThat(consumers.get(1).get("group").asString()).isEqualTo("search");
			assertThat(consumers.get(1).get("state").asString()).isEqualTo("RUNNING");
			assertThat(consumers.get(1).get("listeners").get(0).get("state").asString()).isEqualTo("STOPPED");
			assertThat(consumers.get(1).get("slot").get("name").asString()).isEqualTo("grp_search");
			assertThat(consumers.get(1).get("publication").get("name").asString()).isEqualTo("postlog_search");
			assertThat(consumers.get(1).get("publication").get("tables").toString()).contains("public.docs")
				.doesNotContain("public.orders");
			assertThat(consumers.get(1).get("listeners").get(0).get("lastError").get("outcome").asString())
				.isEqualTo("STOPPED");

			HttpResponse<String> health = get(context, "/actuator/health/postlog");
			assertThat(health.statusCode()).isEqualTo(503);
			JsonNode components = JsonMapper.builder().build().readTree(health.body()).get("components");
			assertThat(components.get("default").get("status").asString()).isEqualTo("UP");
			assertThat(components.get("search").get("status").asString()).isEqualTo("DOWN");
			assertThat(components.get("search").get("details").get("slot").asString()).isEqualTo("grp_search");

			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("postlog.changes")
				.tags("group", "default", "slot", "grp_default", "table", "public.orders")
				.counter()
				.count()).isEqualTo(20);
			assertThat(meters.get("postlog.retries").tags("group", "search", "slot", "grp_search").counter().count())
				.isEqualTo(1);
		}
		// Both groups stopped with the application: neither slot is streamed any more.
		await().atMost(TIMEOUT).untilAsserted(() -> assertThat(activeSlots(database)).isEmpty());
	}

	private static List<String> activeSlots(PostgresDatabase database) throws SQLException {
		try (Connection connection = database.connect();
				PreparedStatement statement = connection.prepareStatement(
						"SELECT slot_name FROM pg_replication_slots WHERE active AND slot_name IN ('grp_default', 'grp_search')");
				ResultSet row = statement.executeQuery()) {
			List<String> slots = new java.util.ArrayList<>();
			while (row.next()) {
				slots.add(row.getString(1));
			}
			return slots;
		}
	}

	@Test
	void lanesKeepPerKeyOrderAndDeferredAcknowledgementsHoldTheSlotUntilAcknowledged(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE keyed (id int PRIMARY KEY, seq int)", "CREATE TABLE acked (id int PRIMARY KEY)");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(LanesApplication.class,
				database, "postlog.slot.name=lanes_default", "postlog.publication.name=lanes_default",
				"postlog.groups.acks.slot.name=lanes_acks")) {
			PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
			PostlogSlotMonitor monitor = context.getBean(PostlogSlotMonitor.class);
			database.execute("INSERT INTO acked VALUES (1)", "INSERT INTO acked VALUES (2)");
			Lsn ackedWritten = monitor.currentLsn();
			for (int seq = 0; seq < 5; seq++) {
				StringBuilder sql = new StringBuilder("BEGIN;");
				for (int key = 0; key < 8; key++) {
					sql.append((seq == 0) ? "INSERT INTO keyed VALUES (" + key + ", 0);"
							: "UPDATE keyed SET seq = " + seq + " WHERE id = " + key + ";");
				}
				database.execute(sql.append("COMMIT").toString());
			}
			Lsn keyedWritten = monitor.currentLsn();
			PostlogConsumerGroup main = registry.group("");
			await().atMost(TIMEOUT)
				.untilAsserted(() -> assertThat(main.ackedLsn()).isGreaterThanOrEqualTo(keyedWritten));
			assertThat(Lanes.seen.values().stream().mapToInt(List::size).sum()).isEqualTo(40);
			for (int key = 0; key < 8; key++) {
				assertThat(Lanes.seen.get(key)).as("key %d", key).containsExactly(0, 1, 2, 3, 4);
			}
			assertThat(Lanes.threads).hasSizeGreaterThan(1);

			PostlogConsumerGroup acks = registry.group("acks");
			await().atMost(TIMEOUT).until(() -> Lanes.acknowledgments.size() == 2);
			Lsn held = confirmedFlush(database, "lanes_acks");
			Thread.sleep(300);
			assertThat(acks.ackedLsn()).isLessThan(ackedWritten);
			assertThat(confirmedFlush(database, "lanes_acks")).isEqualTo(held).isLessThan(ackedWritten);
			Thread acknowledger = new Thread(() -> Lanes.acknowledgments.forEach(Acknowledgment::acknowledge),
					"test-acknowledger");
			acknowledger.start();
			acknowledger.join();
			await().atMost(TIMEOUT).untilAsserted(() -> {
				assertThat(acks.ackedLsn()).isGreaterThanOrEqualTo(ackedWritten);
				assertThat(confirmedFlush(database, "lanes_acks")).isGreaterThanOrEqualTo(ackedWritten);
			});
		}
	}

	private static Lsn confirmedFlush(PostgresDatabase database, String slot) throws SQLException {
		try (Connection connection = database.connect();
				PreparedStatement statement = connection.prepareStatement(
						"SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = ?")) {
			statement.setString(1, slot);
			try (ResultSet row = statement.executeQuery()) {
				assertThat(row.next()).as("slot %s exists", slot).isTrue();
				return Lsn.parse(row.getString(1));
			}
		}
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class GroupsApplication {

		@Bean
		Groups groups() {
			return new Groups();
		}

	}

	static class Groups {

		static final List<Row> orders = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "orders")
		void onOrder(Row row) {
			orders.add(row);
		}

		@PgChangeListener(tables = "docs", group = "search")
		void onDoc(Change change) {
			throw new IllegalStateException("search index unavailable");
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class LanesApplication {

		@Bean
		Lanes lanes() {
			return new Lanes();
		}

	}

	static class Lanes {

		static final Map<Integer, List<Integer>> seen = new ConcurrentHashMap<>();

		static final Set<String> threads = ConcurrentHashMap.newKeySet();

		static final List<Acknowledgment> acknowledgments = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "keyed", concurrency = "4")
		void onKeyed(Row row) throws InterruptedException {
			threads.add(Thread.currentThread().getName());
			Thread.sleep(2);
			seen.computeIfAbsent((Integer) row.get("id"), (key) -> new CopyOnWriteArrayList<>())
				.add((Integer) row.get("seq"));
		}

		@PgChangeListener(tables = "acked", group = "acks")
		void onAcked(Row row, Acknowledgment acknowledgment) {
			acknowledgments.add(acknowledgment);
		}

	}

}
