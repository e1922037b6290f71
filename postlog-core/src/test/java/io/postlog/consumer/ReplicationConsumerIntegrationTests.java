package io.postlog.consumer;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.InsufficientPrivilegeException;
import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.SlotLifecycle;
import io.postlog.admin.SlotNotFoundException;
import io.postlog.decoder.DecoderRefusedException;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

@PostgresTest
class ReplicationConsumerIntegrationTests {

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	@Tag("matrix")
	void deliversTenThousandTransactionsInCommitOrderOnce(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE ordered (id bigint PRIMARY KEY, size int)");
		List<Long> ids = new CopyOnWriteArrayList<>();
		Set<String> changeIds = java.util.concurrent.ConcurrentHashMap.newKeySet();
		start(builder(database, "ordered_slot", "ordered").changeHandler((change) -> {
			ids.add(change.after().get("id", Long.class));
			changeIds.add(change.id());
		}));
		long started = System.nanoTime();
		long written = 0;
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			for (int tx = 0; tx < 10_000; tx++) {
				int size = (tx % 50 == 0) ? 20 : 1 + tx % 3;
				statement.execute("INSERT INTO ordered SELECT " + written + " + g, " + size
						+ " FROM generate_series(1, " + size + ") g");
				written += size;
				connection.commit();
			}
		}
		long total = written;
		await().atMost(Duration.ofMinutes(3)).until(() -> ids.size() >= total);
		long millis = (System.nanoTime() - started) / 1_000_000;
		System.out.println(
				"[measure] 10,000 transactions / " + total + " changes written and delivered in " + millis + " ms");
		assertThat(ids).hasSize((int) total);
		for (int i = 0; i < ids.size(); i++) {
			assertThat(ids.get(i)).isEqualTo(i + 1L);
		}
		assertThat(changeIds).hasSize((int) total);
	}

	@Test
	void handlerThatKeepsFailingStopsAloneAndTheSlotStaysBeforeTheFailedTransaction(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE failing (id int PRIMARY KEY, secret text)");
		List<Integer> seen = new CopyOnWriteArrayList<>();
		List<Lsn> failedCommits = new CopyOnWriteArrayList<>();
		ByteArrayOutputStream logs = captureStdErr();
		ReplicationConsumer consumer;
		Lsn before;
		try {
			consumer = start(builder(database, "failing_slot", "failing")
				.retryPolicy(new RetryPolicy(Duration.ofMillis(50), 2, Duration.ofMillis(200), 3))
				.changeHandler((change) -> {
					seen.add(change.after().get("id", Integer.class));
					if (change.after().get("id", Integer.class) == 2) {
						failedCommits.add(change.commitLsn());
						throw new IllegalStateException("cannot handle this row");
					}
				}));
			database.execute("INSERT INTO failing VALUES (1, 'harmless')");
			await().until(() -> seen.contains(1));
			await().until(() -> consumer.ackedLsn().isValid());
			before = currentLsn(database);
			database.execute("INSERT INTO failing VALUES (2, 'zebra-42-quokka')");
			await().atMost(Duration.ofSeconds(30))
				.until(() -> consumer.subscription("changeHandler").state() == SubscriptionState.STOPPED);
		}
		finally {
			restoreStdErr();
		}
		assertThat(seen.stream().filter((id) -> id == 2)).hasSize(3);
		// The slot holds at the failed transaction's commit LSN: it is streamed again
		// from there, never confirmed past it.
		Lsn failedCommit = failedCommits.get(0);
		assertThat(failedCommit).isGreaterThan(before);
		assertThat(consumer.subscription("changeHandler").position()).isEqualTo(failedCommit);
		// The consumer's position follows its subscriptions' on the delivery thread's
		// next
		// turn, so it may still be behind (never past) the moment the subscription stops.
		await().atMost(Duration.ofSeconds(30)).until(() -> consumer.ackedLsn().equals(failedCommit));
		await().atMost(Duration.ofSeconds(30))
			.until(() -> confirmedFlush(database, "failing_slot").equals(failedCommit));
		database.execute("INSERT INTO failing VALUES (3, 'later')");
		await().during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(5))
			.until(() -> confirmedFlush(database, "failing_slot").equals(failedCommit));
		assertThat(seen).doesNotContain(3);
		String logText = logs.toString(StandardCharsets.UTF_8);
		assertThat(logText).contains("failing_slot").doesNotContain("zebra-42-quokka");
	}

	@Test
	@Tag("matrix")
	void idleSlotFollowsTheServerWhileOnlyUnpublishedTablesChange(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE published (id int PRIMARY KEY)", "CREATE TABLE unpublished (payload text)");
		ReplicationConsumer consumer = start(builder(database, "idle_slot", "published").changeHandler((change) -> {
		}).statusInterval(Duration.ofSeconds(1)));
		await().until(() -> consumer.state() == ConsumerState.RUNNING);
		database.execute("INSERT INTO unpublished SELECT repeat(md5(g::text), 32) FROM generate_series(1, 65536) g");
		Lsn target = currentLsn(database);
		long started = System.nanoTime();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> currentLsn(database).minus(confirmedFlush(database, "idle_slot")) < 1024 * 1024);
		System.out.println("[measure] idle slot within 1 MB of the server after "
				+ (System.nanoTime() - started) / 1_000_000 + " ms (" + target + ")");
	}

	@Test
	void reconnectsAfterTheWalsenderIsTerminatedAndLosesNothing(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE resilient (id int PRIMARY KEY)");
		Set<Integer> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
		List<Integer> all = new CopyOnWriteArrayList<>();
		Recorder recorder = new Recorder();
		start(builder(database, "resilient_slot", "resilient").listener(recorder)
			.retryPolicy(new RetryPolicy(Duration.ofMillis(50), 2, Duration.ofMillis(500), 10))
			.changeHandler((change) -> {
				seen.add(change.after().get("id", Integer.class));
				all.add(change.after().get("id", Integer.class));
			}));
		int id = 0;
		for (int round = 0; round < 10; round++) {
			for (int i = 0; i < 50; i++) {
				database.execute("INSERT INTO resilient VALUES (" + (++id) + ")");
			}
			int pid = await().until(() -> activePid(database, "resilient_slot"), (p) -> p != null);
			database.execute("SELECT pg_terminate_backend(" + pid + ")");
		}
		int written = id;
		await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() == written);
		System.out.println("[measure] walsender terminated 10 times: " + recorder.retries.size() + " reconnects, "
				+ (all.size() - written) + " duplicate deliveries");
		assertThat(recorder.retries.size()).isGreaterThanOrEqualTo(10);
	}

	@Test
	void secondConsumerWaitsInStandbyAndTakesOverWhenTheFirstStops(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE shared (id int PRIMARY KEY)");
		Set<Integer> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
		RetryPolicy policy = new RetryPolicy(Duration.ofMillis(200), 2, Duration.ofSeconds(2), 5);
		ReplicationConsumer first = start(builder(database, "shared_slot", "shared").retryPolicy(policy)
			.changeHandler((change) -> seen.add(change.after().get("id", Integer.class))));
		await().until(() -> first.state() == ConsumerState.RUNNING);
		ReplicationConsumer second = start(builder(database, "shared_slot", "shared").retryPolicy(policy)
			.changeHandler((change) -> seen.add(change.after().get("id", Integer.class))));
		await().until(() -> second.state() == ConsumerState.STANDBY);
		database.execute("INSERT INTO shared SELECT g FROM generate_series(1, 100) g");
		await().until(() -> seen.size() == 100);
		first.stop();
		long stopped = System.nanoTime();
		database.execute("INSERT INTO shared SELECT g FROM generate_series(101, 200) g");
		await().atMost(Duration.ofSeconds(30)).until(() -> second.state() == ConsumerState.RUNNING);
		long millis = (System.nanoTime() - stopped) / 1_000_000;
		await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 200);
		System.out.println("[measure] standby consumer took over " + millis + " ms after the first stopped");
	}

	@Test
	void refusesBadNamesAndAMissingExistingSlotBeforeAnySetUp(PostgresDatabase database) throws Exception {
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> builder(database, "Bad Slot", "x").changeHandler((change) -> {
			}).build());
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> builder(database, "ok_slot", "x").tables(List.of(new TableId("public", "evil\0table")))
				.changeHandler((change) -> {
				})
				.build());
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> builder(database, "ok_slot", "x").tables(List.of(new TableId("public", "t".repeat(64))))
				.changeHandler((change) -> {
				})
				.build());
		ReplicationConsumer missing = builder(database, "missing_slot", "missing_table_pub")
			.slotLifecycle(SlotLifecycle.EXISTING)
			.changeHandler((change) -> {
			})
			.build();
		this.consumers.add(missing);
		assertThatExceptionOfType(SlotNotFoundException.class).isThrownBy(missing::start)
			.withMessageContaining("missing_slot");
		assertThat(missing.state()).isEqualTo(ConsumerState.FAILED);
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement
					.executeQuery("SELECT count(*) FROM pg_publication WHERE pubname = 'missing_table_pub'")) {
			rows.next();
			assertThat(rows.getInt(1)).as("no publication was created").isZero();
		}
	}

	@Test
	@Tag("matrix")
	void binaryFallsBackToTextBeforePostgres14(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE typed (id int PRIMARY KEY, amount numeric, mood text)");
		AtomicReference<Change> seen = new AtomicReference<>();
		ByteArrayOutputStream logs = captureStdErr();
		try {
			start(builder(database, "typed_slot", "typed").binary(true).changeHandler(seen::set));
			database.execute("INSERT INTO typed VALUES (1, 12.50, 'ok')");
			await().until(() -> seen.get() != null);
		}
		finally {
			restoreStdErr();
		}
		assertThat(seen.get().after().get("amount")).isEqualTo(new java.math.BigDecimal("12.50"));
		String logText = logs.toString(StandardCharsets.UTF_8);
		long fallbackLines = logText.lines().filter((line) -> line.contains("cannot stream binary values")).count();
		assertThat(fallbackLines).isEqualTo((database.serverVersion() < 140000) ? 1 : 0);
	}

	@Test
	@Tag("matrix")
	void consumerStoppedMidStreamHandsOverToANewOneWithoutLoss(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE handover (id int PRIMARY KEY)");
		Map<String, Integer> firstIds = new ConcurrentHashMap<>();
		Map<String, Integer> secondIds = new ConcurrentHashMap<>();
		Map<String, Lsn> commits = new ConcurrentHashMap<>();
		ReplicationConsumer first = start(builder(database, "handover_slot", "handover").changeHandler((change) -> {
			firstIds.put(change.id(), change.after().get("id", Integer.class));
			commits.put(change.id(), change.commitLsn());
			Thread.sleep(1);
		}));
		AtomicInteger written = new AtomicInteger();
		Thread writer = new Thread(() -> {
			try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
				for (int tx = 0; tx < 400; tx++) {
					int size = 1 + (tx * 7) % 40;
					int from = written.get() + 1;
					statement.execute("INSERT INTO handover SELECT g FROM generate_series(" + from + ", "
							+ (from + size - 1) + ") g");
					written.addAndGet(size);
				}
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		writer.start();
		await().until(() -> firstIds.size() >= 500);
		first.stop();
		ReplicationConsumer second = start(builder(database, "handover_slot", "handover").changeHandler((change) -> {
			secondIds.put(change.id(), change.after().get("id", Integer.class));
			commits.put(change.id(), change.commitLsn());
		}));
		writer.join(Duration.ofMinutes(1).toMillis());
		int total = written.get();
		await().atMost(Duration.ofSeconds(60)).until(() -> union(firstIds, secondIds).size() == total);
		assertThat(union(firstIds, secondIds))
			.isEqualTo(IntStream.rangeClosed(1, total).boxed().collect(Collectors.toSet()));
		Set<String> repeated = new HashSet<>(firstIds.keySet());
		repeated.retainAll(secondIds.keySet());
		Set<Lsn> repeatedTransactions = repeated.stream().map(commits::get).collect(Collectors.toSet());
		System.out.println("[measure] hand-over after " + firstIds.size() + " changes: " + repeated.size()
				+ " changes repeated, " + second.state());
		assertThat(repeatedTransactions).as("transactions delivered by both consumers").hasSizeLessThanOrEqualTo(1);
	}

	/**
	 * The slot after a stop is where the consumer acknowledged, also while the walsender
	 * is sending ({@link BusyStops}; 26 of 40 stops on PostgreSQL 10 left it up to a
	 * status interval behind before the close lingered).
	 */
	@Test
	@Tag("matrix")
	void stopWhileTheServerSendsLeavesTheSlotAtTheAcknowledgedPosition(PostgresDatabase database) throws Exception {
		BusyStops.run(database, (slot, handler) -> start(builder(database, slot, "busy").changeHandler(handler)));
	}

	@Test
	@Tag("matrix")
	void messageHandlerIsRefusedBeforePostgres14AndReceivesMessagesFrom14(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE noted (id int PRIMARY KEY)");
		List<String> prefixes = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = builder(database, "noted_slot", "noted")
			.messageHandler((message) -> prefixes.add(message.prefix()))
			.build();
		this.consumers.add(consumer);
		if (database.serverVersion() < 140000) {
			assertThatExceptionOfType(DecoderRefusedException.class).isThrownBy(consumer::start)
				.withMessageContaining("logical decoding messages need PostgreSQL 14")
				.withMessageContaining("PostgreSQL " + database.serverVersion() / 10000 + ".");
			assertThat(consumer.state()).isEqualTo(ConsumerState.FAILED);
			assertThat(query(database,
					"SELECT (SELECT count(*) FROM pg_publication WHERE pubname = 'noted_pub') "
							+ "+ (SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'noted_slot')"))
				.as("nothing was set up")
				.isEqualTo("0");
			return;
		}
		consumer.start();
		database.execute("SELECT pg_logical_emit_message(true, 'audit', 'hello')");
		await().atMost(Duration.ofSeconds(30)).until(() -> prefixes.contains("audit"));
	}

	@Test
	@Tag("matrix")
	void roleWithoutReplicationIsRefusedBeforeThePublicationIsCreated(PostgresDatabase database) throws Exception {
		String role = "plain_" + database.name();
		database.execute("CREATE ROLE " + role + " LOGIN",
				"GRANT CREATE ON DATABASE " + database.name() + " TO " + role,
				"CREATE TABLE guarded (id int PRIMARY KEY)", "ALTER TABLE guarded OWNER TO " + role);
		try {
			ReplicationConsumer consumer = ReplicationConsumer.builder()
				.jdbcUrl(database.jdbcUrl(), role, null)
				.slotName("guarded_slot")
				.publicationName("guarded_pub")
				.tables(List.of(new TableId("public", "guarded")))
				.changeHandler((change) -> {
				})
				.build();
			this.consumers.add(consumer);
			assertThatExceptionOfType(InsufficientPrivilegeException.class).isThrownBy(consumer::start)
				.withMessageContaining(role)
				.withMessageContaining("REPLICATION")
				.satisfies((ex) -> assertThat(ex.role()).isEqualTo(role));
			assertThat(consumer.state()).isEqualTo(ConsumerState.FAILED);
			assertThat(query(database,
					"SELECT (SELECT count(*) FROM pg_publication) "
							+ "+ (SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'guarded_slot')"))
				.as("no publication and no slot were created")
				.isEqualTo("0");
		}
		finally {
			database.execute("DROP OWNED BY " + role, "DROP ROLE " + role);
		}
	}

	private static Set<Integer> union(Map<String, Integer> first, Map<String, Integer> second) {
		Set<Integer> union = new HashSet<>(first.values());
		union.addAll(second.values());
		return union;
	}

	private ReplicationConsumer.Builder builder(PostgresDatabase database, String slot, String table) {
		return builder(database.jdbcUrl(), database.username(), slot, table);
	}

	/**
	 * A consumer of one table of schema {@code public}, creating its slot and its
	 * publication (the table's name and {@code _pub}), with a 1 s status interval.
	 */
	static ReplicationConsumer.Builder builder(String jdbcUrl, String username, String slot, String table) {
		return ReplicationConsumer.builder()
			.jdbcUrl(jdbcUrl, username, null)
			.slotName(slot)
			.slotLifecycle(SlotLifecycle.CREATE_IF_MISSING)
			.publicationName(table + "_pub")
			.tables(List.of(new TableId("public", table)))
			.statusInterval(Duration.ofSeconds(1))
			.stopTimeout(Duration.ofSeconds(10));
	}

	private ReplicationConsumer start(ReplicationConsumer.Builder builder) {
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		consumer.start();
		return consumer;
	}

	static Lsn currentLsn(PostgresDatabase database) throws Exception {
		return Lsn.parse(query(database, "SELECT pg_current_wal_lsn()::text"));
	}

	static Lsn confirmedFlush(PostgresDatabase database, String slot) throws Exception {
		String text = query(database,
				"SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
		return (text != null) ? Lsn.parse(text) : Lsn.INVALID;
	}

	static @Nullable Integer activePid(PostgresDatabase database, String slot) throws Exception {
		String text = query(database,
				"SELECT active_pid::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
		return (text != null) ? Integer.valueOf(text) : null;
	}

	static @Nullable String query(PostgresDatabase database, String sql) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(sql)) {
			return rows.next() ? rows.getString(1) : null;
		}
	}

	private static PrintStream originalErr;

	static synchronized ByteArrayOutputStream captureStdErr() {
		ByteArrayOutputStream captured = new ByteArrayOutputStream();
		originalErr = System.err;
		PrintStream original = originalErr;
		System.setErr(new PrintStream(new java.io.OutputStream() {
			@Override
			public void write(int b) {
				synchronized (captured) {
					captured.write(b);
				}
				original.write(b);
			}
		}, true, StandardCharsets.UTF_8));
		return captured;
	}

	static synchronized void restoreStdErr() {
		System.setErr(originalErr);
	}

	static final class Recorder implements ConsumerListener {

		final List<Integer> retries = new CopyOnWriteArrayList<>();

		final Set<PostlogException> failures = new HashSet<>();

		@Override
		public void retrying(int attempt, Duration backOff, Throwable cause) {
			this.retries.add(attempt);
		}

	}

}
