package io.postlog.consumer;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.PublicationNotFoundException;
import io.postlog.admin.SlotLifecycle;
import io.postlog.stream.ReplicationConnectionFactory;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.TcpProxy;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Delivery contract 6 on a real server, with faults made by a loopback {@link TcpProxy}
 * between the consumer and PostgreSQL: closed, half-open and stalled connections and hung
 * connects are detected within their bounds, a long outage never uses up the handlers'
 * attempts, and a consumer that says {@code RUNNING} is delivering. The server's
 * {@code wal_sender_timeout} is 5 s here, so the half-open bound is 15 s. Each test
 * prints what it measured.
 */
@PostgresTest(settings = "wal_sender_timeout=5s")
class ConnectionFaultsIntegrationTests {

	private static final Duration WAL_SENDER_TIMEOUT = Duration.ofSeconds(5);

	private static final Duration STATUS_INTERVAL = Duration.ofSeconds(10);

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final Set<Long> delivered = ConcurrentHashMap.newKeySet();

	private final States states = new States();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	@Test
	void closedConnectionIsDetectedWithinTheBoundAndStreamingResumes(PostgresDatabase database) throws Exception {
		TcpProxy proxy = proxy(database);
		ReplicationConsumer consumer = start(database, proxy, "closed", builder -> builder);
		insertAndAwait(database, "closed", consumer, 1);
		long cut = System.nanoTime();
		proxy.cutConnections();
		long detected = this.states.awaitNext(ConsumerState.RETRYING, cut);
		Duration took = Duration.ofNanos(detected - cut);
		System.out.println("[measure] closed connection detected in " + took.toMillis() + " ms (bound "
				+ bound(STATUS_INTERVAL.multipliedBy(2), Duration.ofSeconds(15)).toMillis() + " ms)");
		assertThat(took).isLessThan(bound(STATUS_INTERVAL.multipliedBy(2), Duration.ofSeconds(15)));
		insertAndAwait(database, "closed", consumer, 2);
		assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
	}

	@Test
	void halfOpenConnectionIsDetectedWithinWalSenderTimeoutPlusTenSeconds(PostgresDatabase database) throws Exception {
		TcpProxy proxy = proxy(database);
		ReplicationConsumer consumer = start(database, proxy, "halfopen",
				(builder) -> builder.connectTimeout(Duration.ofSeconds(2)));
		insertAndAwait(database, "halfopen", consumer, 1);
		long paused = System.nanoTime();
		proxy.pause();
		long detected = this.states.awaitNext(ConsumerState.RETRYING, paused);
		Duration took = Duration.ofNanos(detected - paused);
		System.out.println("[measure] half-open connection detected in " + took.toMillis() + " ms (bound "
				+ WAL_SENDER_TIMEOUT.plusSeconds(10).toMillis() + " ms)");
		assertThat(took).isLessThan(WAL_SENDER_TIMEOUT.plusSeconds(10));
		database.execute("INSERT INTO halfopen VALUES (2)");
		proxy.resume();
		await().atMost(Duration.ofSeconds(60)).until(() -> this.delivered.contains(2L));
		await().until(() -> consumer.state() == ConsumerState.RUNNING);
	}

	@Test
	void stallInsideALargeMessageIsDetectedAndDeliveryResumes(PostgresDatabase database) throws Exception {
		TcpProxy proxy = proxy(database);
		ReplicationConsumer consumer = start(database, proxy, "stalled",
				(builder) -> builder.connectTimeout(Duration.ofSeconds(2)));
		insertAndAwait(database, "stalled", consumer, 1);
		proxy.throttle(2 * 1024 * 1024);
		database.execute("INSERT INTO stalled VALUES (2, repeat('x', 24 * 1024 * 1024))");
		// Well into the 24 MB message, then nothing more: the reader is blocked inside
		// one message, where no poll timeout applies.
		await().until(() -> proxy.bytesForwarded() > 4 * 1024 * 1024);
		long paused = System.nanoTime();
		proxy.pause();
		long detected = this.states.awaitNext(ConsumerState.RETRYING, paused);
		Duration took = Duration.ofNanos(detected - paused);
		System.out.println("[measure] stall inside a 24 MB message detected in " + took.toMillis() + " ms (bound "
				+ WAL_SENDER_TIMEOUT.plusSeconds(10).toMillis() + " ms)");
		assertThat(took).isLessThan(WAL_SENDER_TIMEOUT.plusSeconds(10));
		proxy.throttle(0);
		proxy.resume();
		await().atMost(Duration.ofSeconds(60)).until(() -> this.delivered.contains(2L));
	}

	@Test
	void stopDuringAStallReturnsWithinItsTimeoutAndLeavesNothingBehind(PostgresDatabase database) throws Exception {
		TcpProxy proxy = proxy(database);
		Duration stopTimeout = Duration.ofSeconds(2);
		ReplicationConsumer consumer = start(database, proxy, "stopstall",
				(builder) -> builder.stopTimeout(stopTimeout));
		insertAndAwait(database, "stopstall", consumer, 1);
		proxy.throttle(1024 * 1024);
		database.execute("INSERT INTO stopstall VALUES (2, repeat('x', 16 * 1024 * 1024))");
		await().until(() -> proxy.bytesForwarded() > 2 * 1024 * 1024);
		proxy.pause();
		long start = System.nanoTime();
		consumer.stop();
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		System.out.println("[measure] stop() during a stall returned in " + took.toMillis() + " ms (bound "
				+ stopTimeout.plusSeconds(1).toMillis() + " ms)");
		assertThat(took).isLessThan(stopTimeout.plusSeconds(1));
		assertThat(postlogThreads("stopstall")).isEmpty();
		assertThat(consumer.state()).isEqualTo(ConsumerState.STOPPED);
		proxy.close();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> ReplicationConsumerIntegrationTests.activePid(database, "stopstall_slot") == null);
	}

	@Test
	void hungConnectIsBoundedByTheConnectTimeout(PostgresDatabase database) throws Exception {
		TcpProxy proxy = proxy(database);
		ReplicationConsumer consumer = start(database, proxy, "hung",
				(builder) -> builder.connectTimeout(Duration.ofSeconds(1))
					.reconnectPolicy(new ReconnectPolicy(Duration.ofMillis(100), 2, Duration.ofMillis(200))));
		insertAndAwait(database, "hung", consumer, 1);
		proxy.holdNewConnections(true);
		proxy.cutConnections();
		long accepted = proxy.acceptedConnections();
		long start = System.nanoTime();
		await().atMost(Duration.ofSeconds(20)).until(() -> proxy.acceptedConnections() >= accepted + 3);
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		System.out.println("[measure] 3 connects to a server that never answers gave up in " + took.toMillis()
				+ " ms (connect timeout 1000 ms each)");
		assertThat(consumer.state()).isEqualTo(ConsumerState.RETRYING);
		proxy.holdNewConnections(false);
		insertAndAwait(database, "hung", consumer, 2);
	}

	@Test
	void outageLongerThanTheHandlerAttemptsReconnectsInsteadOfFailing(PostgresDatabase database) throws Exception {
		TcpProxy proxy = proxy(database);
		ReplicationConsumer consumer = start(database, proxy, "outage",
				(builder) -> builder.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofMillis(400), 2))
					.reconnectPolicy(new ReconnectPolicy(Duration.ofMillis(100), 2, Duration.ofMillis(400))));
		insertAndAwait(database, "outage", consumer, 1);
		proxy.refuseNewConnections(true);
		proxy.cutConnections();
		long accepted = proxy.acceptedConnections();
		await().atMost(Duration.ofSeconds(30)).until(() -> proxy.acceptedConnections() >= accepted + 10);
		assertThat(consumer.state()).isEqualTo(ConsumerState.RETRYING);
		database.execute("INSERT INTO outage VALUES (2)");
		proxy.refuseNewConnections(false);
		await().atMost(Duration.ofSeconds(30)).until(() -> this.delivered.contains(2L));
		await().until(() -> consumer.state() == ConsumerState.RUNNING);
		assertThat(this.states.all).doesNotContain(ConsumerState.FAILED);
	}

	@Test
	void droppedPublicationFailsNamingThePublication(PostgresDatabase database) throws Exception {
		ReplicationConsumer consumer = start(database, null, "droppub", (builder) -> builder);
		insertAndAwait(database, "droppub", consumer, 1);
		database.execute("DROP PUBLICATION droppub_pub", "INSERT INTO droppub VALUES (2)");
		await().atMost(Duration.ofSeconds(30)).until(() -> consumer.state() == ConsumerState.FAILED);
		assertThat(this.states.failure).isInstanceOf(PublicationNotFoundException.class)
			.hasMessageContaining("droppub_pub");
	}

	@Test
	void temporarySlotHeldByAnotherSessionMeansStandbyThenTakeOver(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE tmpheld (id bigint PRIMARY KEY)",
				"CREATE PUBLICATION tmpheld_pub FOR TABLE tmpheld");
		Connection holder = database.connectReplication();
		this.resources.add(holder);
		try (var statement = holder.createStatement()) {
			statement.execute("CREATE_REPLICATION_SLOT tmpheld_slot TEMPORARY LOGICAL pgoutput");
		}
		ReplicationConsumer consumer = consumer(database, null, "tmpheld",
				(builder) -> builder.slotLifecycle(SlotLifecycle.TEMPORARY));
		consumer.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> consumer.state() == ConsumerState.STANDBY);
		holder.close();
		await().atMost(Duration.ofSeconds(30)).until(() -> consumer.state() == ConsumerState.RUNNING);
		insertAndAwait(database, "tmpheld", consumer, 1);
	}

	@Test
	void temporarySlotSaysLoudlyAtEveryReconnectThatChangesWereSkipped(PostgresDatabase database) throws Exception {
		List<Lsn[]> skipped = new CopyOnWriteArrayList<>();
		ByteArrayOutputStream logs = ReplicationConsumerIntegrationTests.captureStdErr();
		try {
			ReplicationConsumer consumer = start(database, null, "tmpkill",
					(builder) -> builder.slotLifecycle(SlotLifecycle.TEMPORARY).listener(new ConsumerListener() {

						@Override
						public void stateChanged(ConsumerState previous, ConsumerState current,
								@Nullable Throwable cause) {
							ConnectionFaultsIntegrationTests.this.states.stateChanged(previous, current, cause);
						}

						@Override
						public void slotAdvanced(Lsn acknowledged, Lsn confirmedFlush) {
							skipped.add(new Lsn[] { acknowledged, confirmedFlush });
						}

					}));
			// The temporary slot exists once the stream runs; what is committed before is
			// not its.
			await().atMost(Duration.ofSeconds(30)).until(() -> consumer.state() == ConsumerState.RUNNING);
			insertAndAwait(database, "tmpkill", consumer, 1);
			for (int kill = 0; kill < 3; kill++) {
				Integer pid = ReplicationConsumerIntegrationTests.activePid(database, "tmpkill_slot");
				database.execute("SELECT pg_terminate_backend(" + pid + ")");
				int expected = kill + 1;
				await().atMost(Duration.ofSeconds(30)).until(() -> skipped.size() == expected);
				await().until(() -> consumer.state() == ConsumerState.RUNNING);
			}
		}
		finally {
			ReplicationConsumerIntegrationTests.restoreStdErr();
		}
		assertThat(logs.toString(StandardCharsets.UTF_8)
			.lines()
			.filter((line) -> line.contains("Temporary slot tmpkill_slot") && line.contains("were not delivered")))
			.hasSize(3);
	}

	private static Duration bound(Duration a, Duration b) {
		return (a.compareTo(b) < 0) ? a : b;
	}

	private TcpProxy proxy(PostgresDatabase database) throws Exception {
		TcpProxy proxy = TcpProxy.start(database.server());
		this.resources.add(proxy);
		return proxy;
	}

	private ReplicationConsumer start(PostgresDatabase database, @Nullable TcpProxy proxy, String table,
			java.util.function.UnaryOperator<ReplicationConsumer.Builder> customizer) throws Exception {
		database.execute("CREATE TABLE " + table + " (id bigint PRIMARY KEY, payload text)");
		ReplicationConsumer consumer = consumer(database, proxy, table, customizer);
		consumer.start();
		return consumer;
	}

	private ReplicationConsumer consumer(PostgresDatabase database, @Nullable TcpProxy proxy, String table,
			java.util.function.UnaryOperator<ReplicationConsumer.Builder> customizer) throws Exception {
		Connection admin = database.connect();
		this.resources.add(admin);
		String url = (proxy != null) ? proxy.jdbcUrl(database.name()) : database.jdbcUrl();
		ReplicationConsumer.Builder builder = ReplicationConsumer.builder()
			.connectionFactory(ReplicationConnectionFactory.of(url, database.username(), null))
			.adminConnection(admin)
			.slotName(table + "_slot")
			.publicationName(table + "_pub")
			.tables(List.of(TableId.parse(table)))
			.statusInterval(STATUS_INTERVAL)
			.stopTimeout(Duration.ofSeconds(5))
			.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1), 3))
			.reconnectPolicy(new ReconnectPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1)))
			.listener(this.states)
			.changeHandler((change) -> this.delivered.add(change.after().get("id", Long.class)));
		ReplicationConsumer consumer = customizer.apply(builder).build();
		this.resources.add(consumer::stop);
		return consumer;
	}

	private void insertAndAwait(PostgresDatabase database, String table, ReplicationConsumer consumer, long id)
			throws Exception {
		database.execute("INSERT INTO " + table + " (id) VALUES (" + id + ")");
		await().atMost(Duration.ofSeconds(30)).until(() -> this.delivered.contains(id));
		await().atMost(Duration.ofSeconds(10)).until(() -> consumer.state() == ConsumerState.RUNNING);
	}

	private static List<String> postlogThreads(String table) {
		List<String> names = new ArrayList<>();
		for (Thread thread : Thread.getAllStackTraces().keySet()) {
			if (thread.isAlive() && thread.getName().startsWith("postlog-") && thread.getName().contains(table)) {
				names.add(thread.getName());
			}
		}
		return names;
	}

	/**
	 * Every state the consumer moved to, with when.
	 */
	static final class States implements ConsumerListener {

		final List<ConsumerState> all = new CopyOnWriteArrayList<>();

		final List<long[]> moves = new CopyOnWriteArrayList<>();

		volatile @Nullable Throwable failure;

		@Override
		public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
			this.all.add(current);
			this.moves.add(new long[] { current.ordinal(), System.nanoTime() });
			if (current == ConsumerState.FAILED) {
				this.failure = cause;
			}
		}

		/**
		 * Waits for the first move to a state after a moment.
		 * @return when it happened
		 */
		long awaitNext(ConsumerState state, long after) {
			long[] found = new long[1];
			await().atMost(Duration.ofSeconds(60)).until(() -> {
				for (long[] move : this.moves) {
					if (move[0] == state.ordinal() && move[1] - after >= 0) {
						found[0] = move[1];
						return true;
					}
				}
				return false;
			});
			return found[0];
		}

	}

}
