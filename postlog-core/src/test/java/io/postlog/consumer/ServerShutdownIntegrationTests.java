package io.postlog.consumer;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code pg_ctl stop -m fast} on a server whose consumer holds unfinished work (a slow
 * listener, a listener writing to the same database, an acknowledgement never given)
 * completes within {@link #BOUND}, and after the restart every committed key reaches the
 * listener (duplicates allowed). Each test prints the shutdown time it measured. The
 * test's own server is stopped and started again.
 */
@Tag("matrix")
class ServerShutdownIntegrationTests {

	/** The bound a fast shutdown must keep while a consumer holds work. */
	static final Duration BOUND = Duration.ofSeconds(5);

	/** How long a stop may take before the test gives up on it. */
	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

	private static final RetryPolicy RETRY = new RetryPolicy(Duration.ofMillis(200), 2, Duration.ofSeconds(1), 1000);

	private static EmbeddedPostgresServer server;

	private final Set<Integer> seen = ConcurrentHashMap.newKeySet();

	private final CountDownLatch holding = new CountDownLatch(1);

	private final AtomicBoolean first = new AtomicBoolean(true);

	private ReplicationConsumer consumer;

	private PostgresDatabase database;

	@BeforeAll
	static void startServer() {
		server = EmbeddedPostgresServer.builder().start();
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	@AfterEach
	void stopConsumer() {
		if (this.consumer != null) {
			this.consumer.stop();
		}
	}

	@Test
	void fastShutdownIsNotHeldByASlowListener() throws Exception {
		this.database = database();
		start("slow", Subscription.onChange("slow", (change) -> {
			int id = id(change);
			if (id == 3 && this.first.compareAndSet(true, false)) {
				this.holding.countDown();
				// Twice the bound: a stop held by this listener would miss it.
				Thread.sleep(2 * BOUND.toMillis());
			}
			this.seen.add(id);
		}));
		Duration took = stopWhileHolding("a slow listener");
		assertThat(took).isLessThan(BOUND);
		server.startAgain();
		insert(6, 10);
		await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(this.seen).containsAll(ids(1, 10)));
	}

	@Test
	void fastShutdownIsNotHeldByAListenerWritingToTheSameDatabase() throws Exception {
		this.database = database();
		this.database.execute("CREATE TABLE sink (id int PRIMARY KEY)");
		start("writer", Subscription.onChange("writer", (change) -> {
			int id = id(change);
			try (Connection connection = this.database.connect()) {
				connection.setAutoCommit(false);
				try (Statement statement = connection.createStatement()) {
					statement.execute("INSERT INTO sink VALUES (" + id + ") ON CONFLICT DO NOTHING");
				}
				if (id == 3 && this.first.compareAndSet(true, false)) {
					this.holding.countDown();
					// The fast shutdown ends this session while its transaction is open.
					Thread.sleep(2_000);
				}
				connection.commit();
			}
			this.seen.add(id);
		}));
		Duration took = stopWhileHolding("a listener writing to the same database");
		assertThat(took).isLessThan(BOUND);
		server.startAgain();
		insert(6, 10);
		await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(sinkIds()).containsAll(ids(1, 10)));
	}

	@Test
	void fastShutdownIsNotHeldByAnAcknowledgementNeverGiven() throws Exception {
		this.database = database();
		Set<Acknowledgment> held = ConcurrentHashMap.newKeySet();
		start("acks", Subscription.onChange("acks", (Change change, Acknowledgment acknowledgment) -> {
			int id = id(change);
			if (id == 3 && this.first.compareAndSet(true, false)) {
				held.add(acknowledgment);
				this.holding.countDown();
				return;
			}
			this.seen.add(id);
			acknowledgment.acknowledge();
		}));
		Duration took = stopWhileHolding("an acknowledgement never given");
		assertThat(took).isLessThan(BOUND);
		server.startAgain();
		insert(6, 10);
		Set<Integer> acknowledgedAround = ids(1, 10);
		acknowledgedAround.remove(3);
		await().atMost(Duration.ofSeconds(90))
			.untilAsserted(() -> assertThat(this.seen).containsAll(acknowledgedAround));
		assertThat(held).hasSize(1);
		// The listener owns key 3's acknowledgement, so this process does not call it
		// again; the slot kept it, and the application's restart delivers it.
		this.consumer.stop();
		this.seen.clear();
		start("acks", Subscription.onChange("acks", (Change change, Acknowledgment acknowledgment) -> {
			this.seen.add(id(change));
			acknowledgment.acknowledge();
		}));
		await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(this.seen).contains(3));
	}

	private PostgresDatabase database() {
		PostgresDatabase created = server.createDatabase();
		created.execute("CREATE TABLE items (id int PRIMARY KEY)");
		return created;
	}

	private void start(String name, Subscription subscription) {
		this.consumer = ReplicationConsumer.builder()
			.jdbcUrl(this.database.jdbcUrl(), this.database.username(), null)
			.slotName(name + "_slot")
			.slotLifecycle(SlotLifecycle.CREATE_IF_MISSING)
			.publicationName(name + "_pub")
			.tables(List.of(new TableId("public", "items")))
			.retryPolicy(RETRY)
			// An acknowledgement never given would hold every stop for the default 30 s.
			.stopTimeout(Duration.ofSeconds(2))
			.subscribe(subscription)
			.build();
		this.consumer.start();
		await().until(() -> this.consumer.state() == ConsumerState.RUNNING);
	}

	/**
	 * Commits keys 1 to 5 one transaction each, waits until the listener holds key 3, and
	 * stops the server.
	 */
	private Duration stopWhileHolding(String holding) throws InterruptedException {
		insert(1, 5);
		assertThat(this.holding.await(30, TimeUnit.SECONDS)).isTrue();
		// Let the walsender send the rest, so that it is caught up when asked to stop.
		Thread.sleep(300);
		int version = server.serverVersion();
		Duration took = server.stopFast(STOP_TIMEOUT);
		System.out.println("[measure] PostgreSQL " + version + ": pg_ctl stop -m fast took " + took.toMillis()
				+ " ms while the consumer held " + holding + " (bound " + BOUND.toMillis() + " ms)");
		return took;
	}

	private void insert(int from, int to) {
		for (int id = from; id <= to; id++) {
			this.database.execute("INSERT INTO items VALUES (" + id + ")");
		}
	}

	private Set<Integer> sinkIds() throws SQLException {
		try (Connection connection = this.database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT id FROM sink")) {
			Set<Integer> ids = new java.util.HashSet<>();
			while (rows.next()) {
				ids.add(rows.getInt(1));
			}
			return ids;
		}
	}

	private static int id(Change change) {
		return change.after().get("id", Integer.class);
	}

	private static Set<Integer> ids(int from, int to) {
		return IntStream.rangeClosed(from, to).boxed().collect(Collectors.toSet());
	}

}
