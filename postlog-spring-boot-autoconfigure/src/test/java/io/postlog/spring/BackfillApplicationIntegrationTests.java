package io.postlog.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.Change;
import io.postlog.Operation;
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
 * Backfills in a whole application on a real server, both triggers: a backfill asked for
 * with {@code POST /actuator/postlog/backfill} returns its id, and its progress shows on
 * {@code GET /actuator/postlog} until it completes; then a deploy adds a listener on a
 * table of 50,000 rows ({@code postlog.publication.mode=sync},
 * {@code postlog.snapshot.new-tables=backfill}), whose rows arrive as {@code SNAPSHOT}
 * changes while the other table's changes stream, nothing lost.
 */
@PostgresTest
class BackfillApplicationIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofMinutes(2);

	@Test
	void aBackfillOnDemandAndOneForATableADeployAdds(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE app_orders (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"INSERT INTO app_orders SELECT g, g % 1000, md5(g::text) FROM generate_series(1, 20000) g",
				"CREATE TABLE app_added (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"INSERT INTO app_added SELECT g, g % 1000, md5(g::text) FROM generate_series(1, 50000) g",
				"ANALYZE app_orders", "ANALYZE app_added");
		String[] properties = { "postlog.slot.name=bf_app", "postlog.publication.mode=sync",
				"postlog.snapshot.chunk-size=5000", "postlog.snapshot.new-tables=backfill",
				"management.endpoint.postlog.access=unrestricted" };
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(OrdersApplication.class,
				database, properties)) {
			Models models = context.getBean(Models.class);
			PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
			await().atMost(TIMEOUT).until(() -> registry.state() == ConsumerState.RUNNING);
			JsonNode started = post(context, "/actuator/postlog/backfill", "{\"tables\":\"public.app_orders\"}");
			String id = started.get("id").asString();
			assertThat(started.get("tables").get(0).asString()).isEqualTo("public.app_orders");
			await().atMost(TIMEOUT).until(() -> "COMPLETED".equals(backfill(context, id).get("state").asString()));
			JsonNode done = backfill(context, id);
			assertThat(done.get("rowsDone").asLong()).isEqualTo(20000);
			assertThat(done.get("progress").get(0).get("table").asString()).isEqualTo("public.app_orders");
			assertThat(models.orders).hasSize(20000);
			assertThat(models.ordersSnapshots.get()).isEqualTo(20000);
		}
		database.execute("INSERT INTO app_orders SELECT g, 0, 'between' FROM generate_series(30001, 30100) g");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(DeployedApplication.class,
				database, properties)) {
			Models models = context.getBean(Models.class);
			PostlogConsumerGroup group = context.getBean(PostlogListenerRegistry.class)
				.group(PostlogConsumerGroup.DEFAULT);
			await().atMost(TIMEOUT)
				.until(() -> !group.backfills().isEmpty()
						&& group.backfills().get(0).state() == io.postlog.consumer.Backfill.State.COMPLETED);
			database.execute("INSERT INTO app_orders VALUES (-1, 0, 'last')");
			await().atMost(TIMEOUT).until(() -> models.orders.containsKey(-1L));
			assertThat(group.backfills().get(0).tables()).extracting(Object::toString)
				.containsExactly("public.app_added");
			assertThat(models.addedSnapshots.get()).isEqualTo(50000);
			assertThat(models.added).isEqualTo(table(database, "app_added"));
			// The orders changes committed between the two runs streamed to the new one.
			assertThat(models.orders).hasSize(101);
		}
	}

	private static JsonNode backfill(ConfigurableApplicationContext context, String id) throws Exception {
		JsonNode consumer = InitialSnapshotApplicationIntegrationTests
			.consumer(InitialSnapshotApplicationIntegrationTests.get(context, "/actuator/postlog"), "default");
		for (JsonNode backfill : consumer.get("backfills")) {
			if (backfill.get("id").asString().equals(id)) {
				return backfill;
			}
		}
		throw new AssertionError("no backfill " + id + " in " + consumer);
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

	private static Map<Long, List<Object>> table(PostgresDatabase database, String table) throws Exception {
		Map<Long, List<Object>> rows = new HashMap<>();
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT id, a, b FROM " + table)) {
			while (row.next()) {
				rows.put(row.getLong(1), Arrays.asList(row.getInt(2), row.getString(3)));
			}
		}
		return rows;
	}

	static final class Models {

		final Map<Long, List<Object>> orders = new ConcurrentHashMap<>();

		final Map<Long, List<Object>> added = new ConcurrentHashMap<>();

		final AtomicLong ordersSnapshots = new AtomicLong();

		final AtomicLong addedSnapshots = new AtomicLong();

		static void apply(Map<Long, List<Object>> model, Change change) {
			if (change.operation() == Operation.DELETE) {
				model.remove(change.before().get("id", Long.class));
				return;
			}
			model.put(change.after().get("id", Long.class),
					Arrays.asList(change.after().get("a"), change.after().get("b")));
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class OrdersApplication {

		@Bean
		Models models() {
			return new Models();
		}

		@Bean
		OrdersListener ordersListener(Models models) {
			return new OrdersListener(models);
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class DeployedApplication {

		@Bean
		Models models() {
			return new Models();
		}

		@Bean
		OrdersListener ordersListener(Models models) {
			return new OrdersListener(models);
		}

		@Bean
		AddedListener addedListener(Models models) {
			return new AddedListener(models);
		}

	}

	static class OrdersListener {

		private final Models models;

		OrdersListener(Models models) {
			this.models = models;
		}

		@PgChangeListener(tables = "app_orders")
		void onOrder(Change change) {
			if (change.operation() == Operation.SNAPSHOT) {
				this.models.ordersSnapshots.incrementAndGet();
			}
			Models.apply(this.models.orders, change);
		}

	}

	static class AddedListener {

		private final Models models;

		AddedListener(Models models) {
			this.models = models;
		}

		@PgChangeListener(tables = "app_added")
		void onAdded(Change change) {
			if (change.operation() == Operation.SNAPSHOT) {
				this.models.addedSnapshots.incrementAndGet();
			}
			Models.apply(this.models.added, change);
		}

	}

}
