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
import java.util.concurrent.atomic.AtomicBoolean;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.SubscriptionState;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.BeforeEach;
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
 * A failing listener stops alone, on a real server: the group's other listener goes on,
 * the slot is confirmed no further than the failed transaction, health is DOWN naming the
 * listener, and started again (through the registry or the endpoint) it receives its
 * backlog once while the other is not called again; a listener not started with its group
 * holds the slot until it is.
 */
@PostgresTest
class ListenerIsolationIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final HttpClient http = HttpClient.newHttpClient();

	@BeforeEach
	void reset(PostgresDatabase database) {
		database.execute("CREATE TABLE IF NOT EXISTS parcels (id int PRIMARY KEY, state text NOT NULL)");
		database.execute("TRUNCATE parcels");
		Parcels.healthy.clear();
		Parcels.fragile.clear();
		Parcels.late.clear();
		Parcels.broken.set(true);
	}

	@Test
	void aListenerStoppedByItsErrorHandlerStopsAloneAndStartedAgainReceivesItsBacklogOnce(PostgresDatabase database)
			throws Exception {
		try (ConfigurableApplicationContext context = run(database, "postlog.slot.name=iso_slot",
				"postlog.publication.name=iso_pub")) {
			PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
			database.execute("INSERT INTO parcels VALUES (1, 'ok')");
			await().atMost(TIMEOUT).until(() -> Parcels.fragile.size() == 1);
			Lsn failedAt = insert(database, 2, "poison");
			await().atMost(TIMEOUT)
				.until(() -> registry.listener("Parcels.fragile").state() == SubscriptionState.STOPPED);
			for (int id = 3; id <= 52; id++) {
				insert(database, id, "ok");
			}
			await().atMost(TIMEOUT).until(() -> Parcels.healthy.size() == 52);
			PostlogConsumerGroup group = registry.group("");
			assertThat(group.state()).isEqualTo(ConsumerState.RUNNING);
			assertThat(Parcels.fragile).containsExactly(1);
			// The slot is confirmed no further than the failed transaction, whose commit
			// record starts at or before the LSN read right after it.
			Lsn confirmed = confirmedFlush(database, "iso_slot");
			assertThat(confirmed).isLessThanOrEqualTo(failedAt);
			assertThat(registry.listener("Parcels.fragile").position()).isNotNull()
				.isLessThanOrEqualTo(failedAt)
				.isGreaterThanOrEqualTo(confirmed);

			HttpResponse<String> health = get(context, "/actuator/health/postlog/default");
			assertThat(health.statusCode()).isEqualTo(503);
			assertThat(health.body()).contains("\"state\":\"RUNNING\"",
					"listener 'Parcels.fragile' was stopped by its error handler",
					"\"Parcels.fragile\":{\"state\":\"STOPPED\"");
			JsonNode listeners = json(context, "/actuator/postlog").get("consumers").get(0).get("listeners");
			JsonNode fragile = listener(listeners, "Parcels.fragile");
			assertThat(fragile.get("state").asString()).isEqualTo("STOPPED");
			assertThat(fragile.get("failed").asBoolean()).isTrue();
			assertThat(Lsn.parse(fragile.get("position").asString())).isLessThanOrEqualTo(failedAt);
			assertThat(listener(listeners, "Parcels.healthy").get("state").asString()).isEqualTo("RUNNING");

			Parcels.broken.set(false);
			registry.start("Parcels.fragile");
			await().atMost(TIMEOUT).until(() -> Parcels.fragile.size() == 52);
			await().atMost(TIMEOUT).until(() -> confirmedFlush(database, "iso_slot").compareTo(failedAt) > 0);
			assertThat(Parcels.fragile).doesNotHaveDuplicates().hasSize(52);
			assertThat(Parcels.healthy).doesNotHaveDuplicates().hasSize(52);
			assertThat(registry.listener("Parcels.fragile").state()).isEqualTo(SubscriptionState.RUNNING);
			await().atMost(TIMEOUT).until(() -> get(context, "/actuator/health/postlog/default").statusCode() == 200);
		}
	}

	@Test
	void aListenerNotStartedWithItsGroupHoldsTheSlotUntilTheEndpointStartsIt(PostgresDatabase database)
			throws Exception {
		Parcels.broken.set(false);
		try (ConfigurableApplicationContext context = run(LateApplication.class, database,
				"postlog.slot.name=late_slot", "postlog.publication.name=late_pub",
				"management.endpoint.postlog.access=unrestricted")) {
			PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
			Lsn first = insert(database, 1, "ok");
			insert(database, 2, "ok");
			await().atMost(TIMEOUT).until(() -> Parcels.healthy.size() == 2);
			assertThat(Parcels.late).isEmpty();
			assertThat(registry.listener("Parcels.late").state()).isEqualTo(SubscriptionState.STOPPED);
			assertThat(confirmedFlush(database, "late_slot")).isLessThanOrEqualTo(first);

			HttpResponse<String> started = post(context, "/actuator/postlog/listeners/Parcels.late",
					"{\"action\":\"start\"}");
			assertThat(started.statusCode()).isEqualTo(200);
			await().atMost(TIMEOUT).until(() -> Parcels.late.size() == 2);
			assertThat(Parcels.late).containsExactly(1, 2);
			assertThat(Parcels.healthy).containsExactly(1, 2);
			HttpResponse<String> unknown = post(context, "/actuator/postlog/listeners/nobody", "{\"action\":\"stop\"}");
			assertThat(unknown.statusCode()).isEqualTo(400);
		}
	}

	private static JsonNode listener(JsonNode listeners, String id) {
		for (JsonNode listener : listeners) {
			if (id.equals(listener.get("id").asString())) {
				return listener;
			}
		}
		throw new AssertionError("No listener " + id + " in " + listeners);
	}

	private static Lsn insert(PostgresDatabase database, int id, String state) throws Exception {
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			statement.execute("INSERT INTO parcels VALUES (" + id + ", '" + state + "')");
			try (ResultSet lsn = statement.executeQuery("SELECT pg_current_wal_lsn()::text")) {
				lsn.next();
				return Lsn.parse(lsn.getString(1));
			}
		}
	}

	private static Lsn confirmedFlush(PostgresDatabase database, String slot) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet result = statement
					.executeQuery("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '"
							+ slot + "'")) {
			result.next();
			return Lsn.parse(result.getString(1));
		}
	}

	private JsonNode json(ConfigurableApplicationContext context, String path) throws Exception {
		return JsonMapper.builder().build().readTree(get(context, path).body());
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
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		return URI.create("http://127.0.0.1:" + port + path);
	}

	private static ConfigurableApplicationContext run(PostgresDatabase database, String... properties) {
		return run(IsolationApplication.class, database, properties);
	}

	private static ConfigurableApplicationContext run(Class<?> application, PostgresDatabase database,
			String... properties) {
		List<String> all = new java.util.ArrayList<>(List.of(properties));
		all.add("postlog.retry.initial-interval=20ms");
		all.add("postlog.retry.max-attempts=2");
		return PostlogListenersIntegrationTests.run(application, database, all.toArray(String[]::new));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class IsolationApplication {

		@Bean
		Parcels parcels() {
			return new Parcels();
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class LateApplication {

		@Bean
		LateParcels parcels() {
			return new LateParcels();
		}

	}

	static class Parcels {

		static final List<Integer> healthy = new CopyOnWriteArrayList<>();

		static final List<Integer> fragile = new CopyOnWriteArrayList<>();

		static final List<Integer> late = new CopyOnWriteArrayList<>();

		static final AtomicBoolean broken = new AtomicBoolean(true);

		@PgChangeListener(tables = "parcels", operations = Operation.INSERT, id = "Parcels.healthy")
		void healthy(Change change) {
			healthy.add((Integer) change.row().get("id"));
		}

		@PgChangeListener(tables = "parcels", operations = Operation.INSERT, id = "Parcels.fragile")
		void fragile(Change change) {
			if (broken.get() && "poison".equals(change.row().get("state"))) {
				throw new IllegalStateException("cannot ship");
			}
			fragile.add((Integer) change.row().get("id"));
		}

	}

	static class LateParcels {

		@PgChangeListener(tables = "parcels", operations = Operation.INSERT, id = "Parcels.healthy")
		void healthy(Change change) {
			Parcels.healthy.add((Integer) change.row().get("id"));
		}

		@PgChangeListener(tables = "parcels", operations = Operation.INSERT, id = "Parcels.late",
				autoStartup = "${parcels.late.auto-startup:false}")
		void late(Change change) {
			Parcels.late.add((Integer) change.row().get("id"));
		}

	}

}
