package io.postlog.spring;

import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.core.instrument.MeterRegistry;
import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.Transaction;
import io.postlog.consumer.ConsumerState;

import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Listeners, health, endpoint and metrics of a whole application on a real server.
 */
@PostgresTest
class PostlogListenersIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void everyParameterShapeReceivesTheRightDataAndActuatorShowsIt(PostgresDatabase database) throws Exception {
		database.execute(
				"CREATE TABLE orders (order_id int PRIMARY KEY, customer_name text NOT NULL, total numeric(10,2))",
				"CREATE TABLE items (id int PRIMARY KEY, sku text)", "CREATE TABLE ignored (id int PRIMARY KEY)");
		// pgoutput sends logical decoding messages from PostgreSQL 14 on; before, a
		// message
		// listener is refused at start-up (DecoderRefusedException), so it is left out
		// there.
		int version = EmbeddedPostgresServer.shared().serverVersion();
		boolean messages = version >= 140000;
		// pgoutput sends TRUNCATE from PostgreSQL 11 on.
		boolean truncates = version >= 110000;
		try (ConfigurableApplicationContext context = run(ShapesApplication.class, database, "postlog.slot.name=shapes",
				"postlog.tables=orders,items,ignored", "test.messages=" + messages)) {
			Shapes shapes = context.getBean(Shapes.class);
			database.execute("INSERT INTO orders VALUES (1, 'ada', 12.50)",
					"UPDATE orders SET total = 13.00 WHERE order_id = 1", "INSERT INTO ignored VALUES (1)",
					"BEGIN; INSERT INTO items VALUES (10, 'a'); INSERT INTO orders VALUES (2, 'bob', NULL); COMMIT",
					"DELETE FROM orders WHERE order_id = 2", "TRUNCATE orders",
					"SELECT pg_logical_emit_message(true, 'audit', 'hello')",
					"SELECT pg_logical_emit_message(true, 'other', 'x')");
			CaughtUp.await(context, TIMEOUT);

			List<Operation> operations = new java.util.ArrayList<>(
					List.of(Operation.INSERT, Operation.UPDATE, Operation.INSERT, Operation.DELETE));
			if (truncates) {
				operations.add(Operation.TRUNCATE);
			}
			assertThat(shapes.changes).extracting(Change::operation).containsExactlyElementsOf(operations);
			assertThat(shapes.changeLsns)
				.containsExactlyElementsOf(shapes.changes.stream().map(Change::commitLsn).toList());
			assertThat(shapes.rows).extracting((row) -> row.get("order_id")).containsExactly(1, 1, 2, 2);
			assertThat(shapes.insertMaps).containsExactly(
					Map.of("order_id", 1, "customer_name", "ada", "total", new BigDecimal("12.50")),
					mapWithNull(2, "bob"));
			assertThat(shapes.orders).containsExactly(new Order(1, "ada", new BigDecimal("12.50")),
					new Order(1, "ada", new BigDecimal("13.00")), new Order(2, "bob", null), new Order(2, null, null));
			assertThat(shapes.itemTransactions).hasSize(1);
			Transaction items = shapes.itemTransactions.get(0);
			assertThat(items.changes()).extracting((change) -> change.table().name()).containsExactly("items");
			assertThat(shapes.orderLists).extracting(List::size).hasSize(operations.size()).containsOnly(1);
			if (messages) {
				Messages audit = context.getBean(Messages.class);
				assertThat(audit.messages).extracting(LogicalMessage::prefix).containsExactly("audit");
				assertThat(new String(audit.messages.get(0).content())).isEqualTo("hello");
			}

			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("postlog.changes")
				.tag("table", "public.orders")
				.tag("operation", "INSERT")
				.counter()
				.count()).isEqualTo(2);
			// One transaction per statement above that changed a published table.
			int transactions = truncates ? 6 : 5;
			assertThat(meters.get("postlog.transactions").counter().count()).isGreaterThanOrEqualTo(transactions);
			assertThat(meters.get("postlog.replication.delay").timer().count()).isGreaterThanOrEqualTo(transactions);
			assertThat(meters.get("postlog.handler.duration").timer().count()).isGreaterThanOrEqualTo(transactions);
			assertThat(meters.get("postlog.retries").counter().count()).isZero();
			// The slot gauges read the background poller's reading: NaN until its first.
			await().atMost(TIMEOUT)
				.untilAsserted(
						() -> assertThat(meters.get("postlog.slot.lag").gauge().value()).isGreaterThanOrEqualTo(0));

			assertThat(context.getBean(ApplicationAvailability.class).getReadinessState())
				.isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
			assertThat(get(context, "/actuator/health/postlog").body()).contains("\"status\":\"UP\"",
					"\"components\":{\"default\":");
			HttpResponse<String> health = get(context, "/actuator/health/postlog/default");
			assertThat(health.statusCode()).isEqualTo(200);
			JsonNode healthJson = JsonMapper.builder().build().readTree(health.body());
			assertThat(healthJson.get("status").asString()).isEqualTo("UP");
			assertThat(healthJson.get("details").propertyNames()).contains("slot", "state", "confirmedFlushLsn",
					"lagBytes", "lastCommitTime");
			// pg_replication_slots has wal_status from PostgreSQL 13 on.
			assertThat(healthJson.get("details").has("walStatus")).isEqualTo(version >= 130000);
			assertThat(healthJson.get("details").get("slot").asString()).isEqualTo("shapes");

			HttpResponse<String> endpoint = get(context, "/actuator/postlog");
			assertThat(endpoint.statusCode()).isEqualTo(200);
			JsonNode consumer = JsonMapper.builder().build().readTree(endpoint.body()).get("consumers").get(0);
			assertThat(consumer.get("group").asString()).isEqualTo("default");
			assertThat(consumer.get("state").asString()).isEqualTo("RUNNING");
			assertThat(consumer.get("slot").get("name").asString()).isEqualTo("shapes");
			assertThat(consumer.get("slot").get("exists").asBoolean()).isTrue();
			assertThat(consumer.get("publication").get("tables").toString()).contains("public.orders", "public.items");
			assertThat(consumer.get("listeners").size()).isEqualTo(messages ? 8 : 7);
			assertThat(Lsn.parse(consumer.get("ackedLsn").asString()).isValid()).isTrue();
			assertThat(consumer.get("lagBytes").isNumber()).isTrue();
		}
	}

	@Test
	void failingListenerTurnsHealthDownAndARestartedContextRedelivers(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE payments (id int PRIMARY KEY, amount int)");
		String[] properties = { "postlog.slot.name=failing", "postlog.publication.name=failing",
				"postlog.retry.initial-interval=20ms", "postlog.retry.max-attempts=3" };
		Failing.fail.set(true);
		Failing.received.clear();
		try (ConfigurableApplicationContext context = run(FailingApplication.class, database, properties)) {
			database.execute("INSERT INTO payments VALUES (1, 100)");
			await().atMost(TIMEOUT).untilAsserted(() -> {
				HttpResponse<String> health = get(context, "/actuator/health/postlog");
				assertThat(health.statusCode()).isEqualTo(503);
				// The listener stops alone: its group runs on, and health names it.
				assertThat(health.body()).contains("\"status\":\"DOWN\"", "\"state\":\"RUNNING\"",
						"listener 'Failing.onPayment' was stopped by its error handler");
			});
			assertThat(Failing.received).hasSize(3);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("postlog.retries").counter().count()).isEqualTo(2);
			assertThat(context.getBean(PostlogListenerRegistry.class).listener("Failing.onPayment").cause())
				.hasMessageContaining("public.payments")
				.cause()
				.isInstanceOf(ListenerExecutionFailedException.class)
				.hasMessageStartingWith(
						"Listener 'Failing.onPayment' failed on INSERT on public.payments (commit LSN ");
		}
		Failing.fail.set(false);
		try (ConfigurableApplicationContext context = run(FailingApplication.class, database, properties)) {
			CaughtUp.await(context, TIMEOUT);
			assertThat(Failing.received).hasSize(4);
			assertThat(Failing.received.get(3).get("amount")).isEqualTo(100);
		}
	}

	@Test
	void readinessRefusesTrafficWhileTheConsumerCannotStream(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE IF NOT EXISTS payments (id int PRIMARY KEY, amount int)");
		Failing.fail.set(false);
		// Set-up runs on the DataSource; only the replication connection points nowhere.
		try (ConfigurableApplicationContext context = run(FailingApplication.class, database,
				"postlog.slot.name=unreachable", "postlog.publication.name=unreachable",
				"postlog.datasource.url=jdbc:postgresql://127.0.0.1:1/" + database.name(),
				"postlog.retry.max-attempts=-1")) {
			assertThat(context.getBean(ApplicationAvailability.class).getReadinessState())
				.isEqualTo(ReadinessState.REFUSING_TRAFFIC);
			assertThat(context.getBean(PostlogListenerRegistry.class).state()).isNotEqualTo(ConsumerState.RUNNING);
		}
	}

	private static Map<String, Object> mapWithNull(int id, String name) {
		Map<String, Object> map = new java.util.HashMap<>();
		map.put("order_id", id);
		map.put("customer_name", name);
		map.put("total", null);
		return map;
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	static ConfigurableApplicationContext run(Class<?> application, PostgresDatabase database, String... properties) {
		List<String> args = new java.util.ArrayList<>(List.of("--spring.datasource.url=" + database.jdbcUrl(),
				"--spring.datasource.username=" + database.username(), "--server.port=0",
				"--management.endpoints.web.exposure.include=health,postlog",
				"--management.endpoint.health.show-details=always", "--spring.main.banner-mode=off"));
		for (String property : properties) {
			args.add("--" + property);
		}
		return SpringApplication.run(application, args.toArray(String[]::new));
	}

	record Order(int orderId, String customerName, BigDecimal total) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ShapesApplication {

		@Bean
		Shapes shapes() {
			return new Shapes();
		}

		@Bean
		@ConditionalOnBooleanProperty("test.messages")
		Messages messages() {
			return new Messages();
		}

	}

	static class Messages {

		final List<LogicalMessage> messages = new CopyOnWriteArrayList<>();

		@PgMessageListener(prefix = "audit")
		void audit(LogicalMessage message) {
			this.messages.add(message);
		}

	}

	static class Shapes {

		final List<Change> changes = new CopyOnWriteArrayList<>();

		final List<Lsn> changeLsns = new CopyOnWriteArrayList<>();

		final List<Row> rows = new CopyOnWriteArrayList<>();

		final List<Map<String, Object>> insertMaps = new CopyOnWriteArrayList<>();

		final List<Order> orders = new CopyOnWriteArrayList<>();

		final List<Transaction> itemTransactions = new CopyOnWriteArrayList<>();

		final List<List<Change>> orderLists = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "orders")
		void change(Change change, Lsn commitLsn) {
			this.changes.add(change);
			this.changeLsns.add(commitLsn);
		}

		@PgChangeListener(tables = "public.orders")
		void row(Row row) {
			this.rows.add(row);
		}

		@PgChangeListener(tables = "orders", operations = Operation.INSERT)
		void map(Map<String, Object> row) {
			this.insertMaps.add(row);
		}

		@PgChangeListener(tables = "orders")
		void order(Order order) {
			this.orders.add(order);
		}

		@PgChangeListener(tables = "items")
		void items(Transaction transaction) {
			this.itemTransactions.add(transaction);
		}

		@PgChangeListener(tables = "orders")
		void orderList(List<Change> changes) {
			this.orderLists.add(changes);
		}

		@PgChangeListener(tables = "ignored", operations = Operation.DELETE)
		void neverCalled(Change change) {
			throw new IllegalStateException("no deletes happen on table ignored");
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class FailingApplication {

		@Bean
		Failing failing() {
			return new Failing();
		}

	}

	static class Failing {

		static final AtomicBoolean fail = new AtomicBoolean();

		static final List<Row> received = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "payments")
		void onPayment(Row row) {
			received.add(row);
			if (fail.get()) {
				throw new IllegalStateException("payment service down");
			}
		}

	}

}
