package io.postlog.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.core.instrument.MeterRegistry;
import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.consumer.ConsumerState;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code postlog.snapshot.mode=initial} in a whole application on a real server: two
 * groups each snapshot their own slot's tables (a keyed table bound to a record on four
 * lanes, a keyless one as changes) while a writer inserts, updates and deletes, then
 * stream. While the default group's snapshot is held at its first row, the application is
 * not ready, its health is UNKNOWN with the snapshot's progress, the endpoint shows it,
 * and a second instance on the same slot waits in standby without reporting the missing
 * slot as DOWN. At the end each read model equals its table, every {@code SNAPSHOT}
 * change came first, no key came both as a snapshot row and as an insert, and
 * {@code postlog.snapshot.rows} counted every row.
 */
@PostgresTest
class InitialSnapshotApplicationIntegrationTests {

	private static final int KEYED = Integer.getInteger("postlog.snapshot.proof.keyed", 200_000);

	private static final int KEYLESS = Integer.getInteger("postlog.snapshot.proof.keyless", 50_000);

	private static final Duration TIMEOUT = Duration.ofMinutes(3);

	@Test
	void groupsSnapshotTheirTablesWhileAWriterChangesThemThenStream(PostgresDatabase database) throws Exception {
		database
			.execute("CREATE TABLE accounts (id bigint PRIMARY KEY, balance int NOT NULL, owner text)",
					"INSERT INTO accounts SELECT g, g % 1000, md5(g::text) FROM generate_series(1, " + KEYED + ") g",
					"CREATE TABLE events (kind int, note text)", "ALTER TABLE events REPLICA IDENTITY FULL",
					"INSERT INTO events SELECT g % " + (KEYLESS / 2) + ", md5((g % " + (KEYLESS / 2)
							+ ")::text) FROM generate_series(1, " + KEYLESS + ") g",
					"ANALYZE accounts", "ANALYZE events");
		Writer writer = new Writer(database);
		writer.start();
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(SnapshotApplication.class,
				database, "postlog.slot.name=snap_app", "postlog.snapshot.mode=initial",
				"postlog.snapshot.chunk-size=20000", "postlog.groups.audit.slot.name=snap_audit")) {
			ReadModels models = context.getBean(ReadModels.class);
			PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
			// The default group's listener holds its first snapshot row.
			assertThat(models.firstSnapshotRow.await(2, TimeUnit.MINUTES)).isTrue();
			PostlogConsumerGroup group = registry.group(PostlogConsumerGroup.DEFAULT);
			assertThat(group.state()).isEqualTo(ConsumerState.SNAPSHOT);
			assertThat(context.getBean(ApplicationAvailability.class).getReadinessState())
				.isEqualTo(ReadinessState.REFUSING_TRAFFIC);
			JsonNode health = get(context, "/actuator/health/postlog/default");
			assertThat(health.get("status").asString()).as("%s", health).isEqualTo("UNKNOWN");
			assertThat(health.get("details").get("state").asString()).isEqualTo("SNAPSHOT");
			assertThat(health.get("details").get("snapshot").get("complete").asBoolean()).isFalse();
			assertThat(health.get("details").has("reasons")).isFalse();
			JsonNode snapshot = consumer(get(context, "/actuator/postlog"), "default").get("snapshot");
			assertThat(snapshot.get("state").asString()).isEqualTo("RUNNING");
			assertThat(snapshot.get("tables").get(0).get("table").asString()).isEqualTo("public.accounts");
			assertThat(snapshot.get("tables").get(0).get("rowsEstimated").asLong()).isCloseTo(KEYED,
					org.assertj.core.data.Percentage.withPercentage(10));
			standbyBehindTheSnapshot(database);
			long writesDuringSnapshot = Writer.COMMITS.get() - models.commitsAtSnapshotStart;
			models.release.countDown();
			await().atMost(TIMEOUT)
				.until(() -> registry.groups().stream().allMatch((each) -> each.state() == ConsumerState.RUNNING));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> context.getBean(ApplicationAvailability.class)
					.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC);
			Thread.sleep(500);
			writer.stop();
			database.execute("INSERT INTO accounts VALUES (-1, 0, 'last')", "INSERT INTO events VALUES (-1, 'last')");
			CaughtUp.await(context, TIMEOUT);
			assertThat(models.snapshotStarts).containsExactlyInAnyOrder("snap_app", "snap_audit");
			for (Order order : List.of(models.accountsOrder, models.eventsOrder)) {
				assertThat(order.lastSnapshot.get()).as("the last SNAPSHOT change came before the first streamed one")
					.isLessThan(order.firstStream.get());
			}
			assertThat(models.snapshotKeys).as("keys delivered both as SNAPSHOT and as INSERT")
				.doesNotContainAnyElementsOf(models.insertedKeys);
			assertThat(writesDuringSnapshot).as("writer commits during the snapshot").isPositive();
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("postlog.snapshot.rows").tag("table", "public.accounts").counter().count())
				.isEqualTo(models.snapshotKeys.size());
			assertThat(meters.get("postlog.snapshot.rows")
				.tag("table", "public.events")
				.tag("group", "audit")
				.counter()
				.count()).isEqualTo(models.keylessSnapshotRows.get());
			JsonNode audit = consumer(get(context, "/actuator/postlog"), "audit").get("snapshot");
			assertThat(audit.get("state").asString()).isEqualTo("COMPLETE");
			assertThat(audit.get("rowsDone").asLong()).isEqualTo(models.keylessSnapshotRows.get());
			JsonNode running = get(context, "/actuator/health/postlog/default");
			assertThat(running.get("status").asString()).isEqualTo("UP");
			assertThat(running.get("details").get("snapshot").get("complete").asBoolean()).isTrue();
			assertThat(differences(models.accounts, accounts(database))).as("accounts").isEmpty();
			assertThat(differences(models.events, events(database))).as("events").isEmpty();
		}
		finally {
			writer.stop();
		}
	}

	/**
	 * A second instance on the default group's slot while the first holds its snapshot:
	 * it waits in standby (the snapshot's lock), and health does not report the slot,
	 * which does not exist yet on PostgreSQL 12+, as missing.
	 */
	private static void standbyBehindTheSnapshot(PostgresDatabase database) throws Exception {
		try (ConfigurableApplicationContext second = PostlogListenersIntegrationTests.run(SecondInstance.class,
				database, "postlog.slot.name=snap_app", "postlog.snapshot.mode=initial")) {
			PostlogListenerRegistry registry = second.getBean(PostlogListenerRegistry.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> registry.state() == ConsumerState.STANDBY);
			JsonNode health = get(second, "/actuator/health/postlog");
			assertThat(health.get("status").asString()).as("%s", health).isEqualTo("UNKNOWN");
			assertThat(second.getBean(SecondInstance.class).changes).isEmpty();
		}
	}

	static JsonNode consumer(JsonNode endpoint, String group) {
		for (JsonNode consumer : endpoint.get("consumers")) {
			if (consumer.get("group").asString().equals(group)) {
				return consumer;
			}
		}
		throw new AssertionError("no consumer of group " + group + " in " + endpoint);
	}

	static JsonNode get(ConfigurableApplicationContext context, String path) throws Exception {
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest
				.newBuilder(URI.create(
						"http://localhost:" + ((WebServerApplicationContext) context).getWebServer().getPort() + path))
				.build(), HttpResponse.BodyHandlers.ofString());
		return JsonMapper.builder().build().readTree(response.body());
	}

	private static Map<Long, List<Object>> accounts(PostgresDatabase database) throws Exception {
		Map<Long, List<Object>> rows = new HashMap<>();
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT id, balance, owner FROM accounts")) {
			while (row.next()) {
				rows.put(row.getLong(1), Arrays.asList(row.getInt(2), row.getString(3)));
			}
		}
		return rows;
	}

	private static Map<List<Object>, Integer> events(PostgresDatabase database) throws Exception {
		Map<List<Object>, Integer> rows = new HashMap<>();
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT kind, note FROM events")) {
			while (row.next()) {
				rows.merge(Arrays.asList(row.getObject(1), row.getString(2)), 1, Integer::sum);
			}
		}
		return rows;
	}

	private static <K, V> List<String> differences(Map<K, V> actual, Map<K, V> expected) {
		List<String> differences = new ArrayList<>();
		expected.forEach((key, value) -> {
			if (!value.equals(actual.get(key))) {
				differences.add((actual.containsKey(key) ? "different " : "missing ") + key);
			}
		});
		actual.keySet()
			.stream()
			.filter((key) -> !expected.containsKey(key))
			.forEach((key) -> differences.add("extra " + key));
		return (differences.size() > 20) ? List.of(differences.subList(0, 20) + " ... " + differences.size())
				: differences;
	}

	record Account(long id, @Nullable Integer balance, @Nullable String owner) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class SnapshotApplication {

		@Bean
		ReadModels readModels() {
			return new ReadModels();
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class SecondInstance {

		final List<Change> changes = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "accounts")
		void onAccount(Change change) {
			this.changes.add(change);
		}

	}

	/**
	 * The listeners: accounts bound to a record on four lanes, events as changes in a
	 * group of their own; both start over when their group's snapshot begins.
	 */
	static class ReadModels {

		final Map<Long, List<Object>> accounts = new ConcurrentHashMap<>();

		final Map<List<Object>, Integer> events = new HashMap<>();

		final Set<Long> snapshotKeys = ConcurrentHashMap.newKeySet();

		final Set<Long> insertedKeys = ConcurrentHashMap.newKeySet();

		final List<String> snapshotStarts = new CopyOnWriteArrayList<>();

		final AtomicLong keylessSnapshotRows = new AtomicLong();

		/** Each group's order: its snapshot comes before its own stream. */
		final Order accountsOrder = new Order();

		final Order eventsOrder = new Order();

		volatile long commitsAtSnapshotStart;

		final CountDownLatch firstSnapshotRow = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		@EventListener
		void onSnapshotStarted(PostlogSnapshotStartedEvent event) {
			this.snapshotStarts.add(event.slotName());
			if (event.group().isEmpty()) {
				this.accounts.clear();
				this.commitsAtSnapshotStart = Writer.COMMITS.get();
			}
			else {
				synchronized (this.events) {
					this.events.clear();
				}
			}
		}

		@PgChangeListener(tables = "accounts", concurrency = "4")
		void onAccount(Account account, Operation operation) throws InterruptedException {
			this.accountsOrder.saw(operation);
			if (operation == Operation.SNAPSHOT) {
				if (this.firstSnapshotRow.getCount() > 0) {
					this.firstSnapshotRow.countDown();
					this.release.await(2, TimeUnit.MINUTES);
				}
				this.snapshotKeys.add(account.id());
			}
			else if (operation == Operation.INSERT) {
				this.insertedKeys.add(account.id());
			}
			if (operation == Operation.DELETE) {
				this.accounts.remove(account.id());
			}
			else {
				this.accounts.put(account.id(), Arrays.asList(account.balance(), account.owner()));
			}
		}

		@PgChangeListener(tables = "events", group = "audit")
		void onEvent(Change change) {
			this.eventsOrder.saw(change.operation());
			if (change.operation() == Operation.SNAPSHOT) {
				this.keylessSnapshotRows.incrementAndGet();
			}
			synchronized (this.events) {
				if (change.before() != null) {
					this.events.computeIfPresent(
							Arrays.asList(change.before().get("kind"), change.before().get("note")),
							(row, count) -> (count == 1) ? null : count - 1);
				}
				if (change.after() != null) {
					this.events.merge(Arrays.asList(change.after().get("kind"), change.after().get("note")), 1,
							Integer::sum);
				}
			}
		}

	}

	/**
	 * Where in one group's delivery the last snapshot row and the first streamed change
	 * came.
	 */
	static final class Order {

		final AtomicLong sequence = new AtomicLong();

		final AtomicLong lastSnapshot = new AtomicLong(-1);

		final AtomicLong firstStream = new AtomicLong(Long.MAX_VALUE);

		void saw(Operation operation) {
			long seq = this.sequence.incrementAndGet();
			if (operation == Operation.SNAPSHOT) {
				this.lastSnapshot.accumulateAndGet(seq, Math::max);
			}
			else {
				this.firstStream.accumulateAndGet(seq, Math::min);
			}
		}

	}

	/**
	 * Inserts, updates and deletes rows of both tables in small transactions until
	 * stopped; an inserted key is new to the table.
	 */
	private static final class Writer {

		static final AtomicLong COMMITS = new AtomicLong();

		private final PostgresDatabase database;

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

		private final Thread thread;

		Writer(PostgresDatabase database) {
			this.database = database;
			this.thread = new Thread(this::run, "test-snapshot-writer");
		}

		void start() {
			this.thread.start();
		}

		void stop() throws InterruptedException {
			if (!this.running.getAndSet(false)) {
				return;
			}
			this.thread.join(30_000);
			assertThat(this.thread.isAlive()).isFalse();
			assertThat(this.failure.get()).as("writer failure").isNull();
		}

		private void run() {
			Random random = new Random();
			long nextId = KEYED + 1;
			int half = KEYLESS / 2;
			try (Connection connection = this.database.connect();
					PreparedStatement insert = connection
						.prepareStatement("INSERT INTO accounts VALUES (?, ?, md5(random()::text))");
					PreparedStatement update = connection.prepareStatement(
							"UPDATE accounts SET balance = balance + 1, owner = md5(random()::text) WHERE id = ?");
					PreparedStatement delete = connection.prepareStatement("DELETE FROM accounts WHERE id = ?");
					PreparedStatement insertEvent = connection
						.prepareStatement("INSERT INTO events VALUES (?, md5(random()::text))");
					PreparedStatement updateEvent = connection.prepareStatement("UPDATE events SET note = "
							+ "md5(random()::text) WHERE ctid = (SELECT ctid FROM events WHERE kind = ? LIMIT 1)");
					PreparedStatement deleteEvent = connection.prepareStatement(
							"DELETE FROM events WHERE ctid = (SELECT ctid FROM events WHERE kind = ? LIMIT 1)")) {
				connection.setAutoCommit(false);
				while (this.running.get()) {
					int choice = random.nextInt(12);
					if (choice < 4) {
						insert.setLong(1, nextId++);
						insert.setInt(2, random.nextInt(1000));
						insert.executeUpdate();
					}
					else if (choice < 9) {
						PreparedStatement statement = (choice < 7) ? update : delete;
						statement.setLong(1, 1 + (long) (random.nextDouble() * (nextId - 1)));
						statement.executeUpdate();
					}
					else {
						PreparedStatement statement = (choice == 9) ? insertEvent
								: (choice == 10) ? updateEvent : deleteEvent;
						statement.setInt(1, random.nextInt(half));
						statement.executeUpdate();
					}
					connection.commit();
					COMMITS.incrementAndGet();
					Thread.sleep(5);
				}
			}
			catch (Throwable ex) {
				this.failure.set(ex);
			}
		}

	}

}
