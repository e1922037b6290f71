package io.postlog.consumer;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.admin.SlotLifecycle;
import io.postlog.snapshot.SnapshotRefusedException;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The initial snapshot through {@link ReplicationConsumer} on a real server: a keyed and
 * a keyless table are snapshotted while a writer inserts, updates and deletes, through a
 * change subscription on lanes, a serial one and a transaction one; the read models they
 * build equal the tables at the end, every {@code SNAPSHOT} change came before the
 * stream, and no key came both as a snapshot row and as an insert the snapshot saw. The
 * publication is {@code FOR ALL TABLES}, so that before PostgreSQL 12 the snapshot's own
 * marker table is published too and must reach no subscription.
 */
@PostgresTest
@Tag("matrix")
class InitialSnapshotIntegrationTests {

	private static final int KEYED = Integer.getInteger("postlog.snapshot.proof.keyed", 200_000);

	private static final int KEYLESS = Integer.getInteger("postlog.snapshot.proof.keyless", 50_000);

	private static final long SENTINEL = -1;

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void snapshotWhileWritingThenStreamingEqualsTheTables(PostgresDatabase database) throws Exception {
		database.execute(
				"CREATE TABLE snap_keyed (id bigint PRIMARY KEY, a int NOT NULL, b text, c numeric(12,2), "
						+ "d timestamptz)",
				"INSERT INTO snap_keyed SELECT g, g % 1000, md5(g::text), g / 100.0, "
						+ "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second' FROM generate_series(1, "
						+ KEYED + ") g",
				"CREATE TABLE snap_keyless (k int, v text)", "ALTER TABLE snap_keyless REPLICA IDENTITY FULL",
				// Every row twice: a keyless table may hold equal rows.
				"INSERT INTO snap_keyless SELECT g % " + (KEYLESS / 2) + ", md5((g % " + (KEYLESS / 2)
						+ ")::text) FROM generate_series(1, " + KEYLESS + ") g",
				"ANALYZE snap_keyed", "ANALYZE snap_keyless");
		Map<Long, List<Object>> keyed = new ConcurrentHashMap<>();
		Map<List<Object>, Integer> keyless = new HashMap<>();
		AtomicLong sequence = new AtomicLong();
		AtomicLong lastSnapshot = new AtomicLong(-1);
		AtomicLong firstStream = new AtomicLong(Long.MAX_VALUE);
		Set<Long> snapshotKeys = ConcurrentHashMap.newKeySet();
		Set<Long> insertedKeys = ConcurrentHashMap.newKeySet();
		Set<TableId> tablesSeen = ConcurrentHashMap.newKeySet();
		List<Lsn> streamCommits = new CopyOnWriteArrayList<>();
		AtomicInteger largestBatch = new AtomicInteger();
		AtomicLong batchedRows = new AtomicLong();
		AtomicReference<@Nullable String> badBatch = new AtomicReference<>();
		Writer writer = new Writer(database);
		Events events = new Events(writer);
		writer.start();
		ReplicationConsumer consumer;
		try {
			ChangeHandler order = (change) -> {
				long seq = sequence.incrementAndGet();
				tablesSeen.add(change.table());
				if (change.operation() == Operation.SNAPSHOT) {
					lastSnapshot.accumulateAndGet(seq, Math::max);
				}
				else {
					firstStream.accumulateAndGet(seq, Math::min);
					streamCommits.add(change.commitLsn());
				}
			};
			consumer = start(ReplicationConsumer.builder()
				.jdbcUrl(database.jdbcUrl(), database.username(), null)
				.slotName("snap_slot")
				.publicationName("snap_pub")
				.statusInterval(Duration.ofSeconds(1))
				.stopTimeout(Duration.ofSeconds(10))
				.initialSnapshot(2, 20_000)
				.listener(events)
				.subscribe(Subscription.onChange("keyed", (change) -> {
					order.handle(change);
					applyKeyed(keyed, change, snapshotKeys, insertedKeys);
				}).withConcurrency(4).withFilter((change) -> change.table().name().equals("snap_keyed")))
				.subscribe(Subscription.onChange("keyless", (change) -> {
					order.handle(change);
					applyKeyless(keyless, change);
				}).withFilter((change) -> change.table().name().equals("snap_keyless")))
				.subscribe(Subscription.onTransaction("batches", (Transaction transaction) -> {
					long snapshotRows = transaction.changes()
						.stream()
						.filter((change) -> change.operation() == Operation.SNAPSHOT)
						.count();
					if (snapshotRows == 0) {
						return;
					}
					if (snapshotRows != transaction.changes().size() || transaction.xid() != 0
							|| !transaction.commitLsn().equals(transaction.changes().get(0).commitLsn())) {
						badBatch.set("xid " + transaction.xid() + ", commit LSN " + transaction.commitLsn() + ", "
								+ snapshotRows + " of " + transaction.changes().size() + " rows SNAPSHOT");
					}
					largestBatch.accumulateAndGet(transaction.changes().size(), Math::max);
					batchedRows.addAndGet(snapshotRows);
				})));
			await().atMost(Duration.ofMinutes(3)).until(() -> consumer.state() == ConsumerState.RUNNING);
			// Keep writing after the hand-off, then stop and wait for the sentinel.
			Thread.sleep(1000);
		}
		finally {
			writer.stop();
		}
		database.execute("INSERT INTO snap_keyed VALUES (" + SENTINEL + ", 0, 'last', 0, now())");
		await().atMost(Duration.ofMinutes(2)).until(() -> keyed.containsKey(SENTINEL));
		SnapshotProgress progress = consumer.snapshot();
		System.out.println("[measure] initial snapshot of " + progress.rowsDone() + " rows at "
				+ progress.consistentPoint() + " in " + events.millis() + " ms, " + events.writesDuring()
				+ " writer commits during it, " + writer.commits + " in all; server " + database.serverVersion());
		assertThat(events.states).containsSubsequence(ConsumerState.STARTING, ConsumerState.SNAPSHOT,
				ConsumerState.RUNNING);
		assertThat(progress.complete()).isTrue();
		// Every table of the database (the class's other tests' too), but postlog's own.
		assertThat(progress.tables()).extracting((table) -> table.table().name())
			.contains("snap_keyed", "snap_keyless")
			.doesNotContain("postlog_snapshot");
		assertThat(events.started.get()).isEqualTo(progress.consistentPoint());
		assertThat(events.writesDuring()).as("writer commits during the snapshot").isPositive();
		assertThat(lastSnapshot.get()).as("the last SNAPSHOT change came before the first streamed one")
			.isLessThan(firstStream.get());
		assertThat(streamCommits).as("streamed changes all committed after the consistent point")
			.allSatisfy((lsn) -> assertThat(lsn).isGreaterThan(progress.consistentPoint()));
		assertThat(snapshotKeys).as("keys delivered both as SNAPSHOT and as INSERT")
			.doesNotContainAnyElementsOf(insertedKeys);
		assertThat(tablesSeen).extracting(TableId::name).containsOnly("snap_keyed", "snap_keyless");
		assertThat(badBatch.get()).isNull();
		assertThat(largestBatch.get()).isBetween(1, 256);
		assertThat(batchedRows.get()).isEqualTo(progress.rowsDone());
		keyed.remove(SENTINEL);
		database.execute("DELETE FROM snap_keyed WHERE id = " + SENTINEL);
		assertThat(differences(keyed, keyedTable(database))).as("keyed read model against the table").isEmpty();
		assertThat(differences(keyless, keylessTable(database))).as("keyless read model against the table").isEmpty();
	}

	@Test
	void aSlotThatExistsIsStreamedWithoutASnapshot(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE again (id int PRIMARY KEY)", "INSERT INTO again SELECT generate_series(1, 10)");
		List<Change> first = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(builder(database, "again_slot", "again").changeHandler(first::add));
		await().atMost(Duration.ofMinutes(1)).until(() -> consumer.state() == ConsumerState.RUNNING);
		database.execute("INSERT INTO again VALUES (11)");
		await().until(() -> first.size() == 11);
		assertThat(first).extracting(Change::operation)
			.containsExactly(Operation.SNAPSHOT, Operation.SNAPSHOT, Operation.SNAPSHOT, Operation.SNAPSHOT,
					Operation.SNAPSHOT, Operation.SNAPSHOT, Operation.SNAPSHOT, Operation.SNAPSHOT, Operation.SNAPSHOT,
					Operation.SNAPSHOT, Operation.INSERT);
		consumer.stop();
		assertThat(slots(database)).containsExactly("again_slot");
		database.execute("INSERT INTO again VALUES (12)");
		List<Change> second = new CopyOnWriteArrayList<>();
		ReplicationConsumer restarted = start(builder(database, "again_slot", "again").changeHandler(second::add));
		await().atMost(Duration.ofMinutes(1)).until(() -> second.size() == 1);
		assertThat(second).extracting(Change::operation).containsExactly(Operation.INSERT);
		assertThat(second.get(0).after().get("id")).isEqualTo(12);
		assertThat(restarted.snapshot()).isNull();
	}

	@Test
	void anExistingSlotIsRefusedBeforeAnythingIsCreated(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE refused (id int PRIMARY KEY)",
				"SELECT pg_create_logical_replication_slot('refused_slot', 'pgoutput')");
		ReplicationConsumer consumer = builder(database, "refused_slot", "refused")
			.slotLifecycle(SlotLifecycle.EXISTING)
			.changeHandler((change) -> {
			})
			.build();
		this.consumers.add(consumer);
		assertThatExceptionOfType(SnapshotRefusedException.class).isThrownBy(consumer::start)
			.withMessageContaining("slot 'refused_slot'")
			.withMessageContaining("exists already (confirmed at ")
			.withMessageContaining("create-if-missing");
		assertThat(consumer.state()).isEqualTo(ConsumerState.FAILED);
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement
					.executeQuery("SELECT count(*) FROM pg_publication WHERE pubname = 'refused_pub'")) {
			row.next();
			assertThat(row.getInt(1)).as("publications created").isZero();
		}
		database.execute("SELECT pg_drop_replication_slot('refused_slot')");
	}

	private static void applyKeyed(Map<Long, List<Object>> model, Change change, Set<Long> snapshotKeys,
			Set<Long> insertedKeys) {
		if (change.operation() == Operation.DELETE) {
			model.remove(change.before().get("id", Long.class));
			return;
		}
		Row row = change.after();
		long id = row.get("id", Long.class);
		if (change.operation() == Operation.SNAPSHOT) {
			snapshotKeys.add(id);
		}
		else if (change.operation() == Operation.INSERT) {
			insertedKeys.add(id);
		}
		model.put(id, keyedValues(row.get("a"), row.get("b"), row.get("c"), row.get("d")));
	}

	private static void applyKeyless(Map<List<Object>, Integer> model, Change change) {
		if (change.before() != null) {
			List<Object> old = Arrays.asList(change.before().get("k"), change.before().get("v"));
			model.computeIfPresent(old, (row, count) -> (count == 1) ? null : count - 1);
		}
		if (change.after() != null) {
			model.merge(Arrays.asList(change.after().get("k"), change.after().get("v")), 1, Integer::sum);
		}
	}

	private static List<Object> keyedValues(@Nullable Object a, @Nullable Object b, @Nullable Object c,
			@Nullable Object d) {
		Object amount = (c instanceof BigDecimal decimal) ? decimal.stripTrailingZeros() : c;
		Object time = (d instanceof java.time.OffsetDateTime offset) ? offset.toInstant() : d;
		return Arrays.asList(a, b, amount, time);
	}

	private static Map<Long, List<Object>> keyedTable(PostgresDatabase database) throws SQLException {
		Map<Long, List<Object>> rows = new HashMap<>();
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT id, a, b, c, d FROM snap_keyed")) {
			while (row.next()) {
				rows.put(row.getLong(1), keyedValues(row.getInt(2), row.getString(3), row.getBigDecimal(4),
						row.getObject(5, java.time.OffsetDateTime.class)));
			}
		}
		return rows;
	}

	private static Map<List<Object>, Integer> keylessTable(PostgresDatabase database) throws SQLException {
		Map<List<Object>, Integer> rows = new HashMap<>();
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT k, v FROM snap_keyless")) {
			while (row.next()) {
				rows.merge(Arrays.asList(row.getObject(1), row.getString(2)), 1, Integer::sum);
			}
		}
		return rows;
	}

	/**
	 * Returns how a read model differs from a table: up to 20 keys, then the total.
	 */
	static <K, V> List<String> differences(Map<K, V> actual, Map<K, V> expected) {
		List<String> differences = new ArrayList<>();
		expected.forEach((key, value) -> {
			if (!actual.containsKey(key)) {
				differences.add("missing " + key);
			}
			else if (!actual.get(key).equals(value)) {
				differences.add("different " + key + ": " + actual.get(key) + " instead of " + value);
			}
		});
		actual.keySet()
			.stream()
			.filter((key) -> !expected.containsKey(key))
			.forEach((key) -> differences.add("extra " + key));
		if (differences.size() > 20) {
			int total = differences.size();
			List<String> first = new ArrayList<>(differences.subList(0, 20));
			first.add("... " + total + " differences in all");
			return first;
		}
		return differences;
	}

	static List<String> slots(PostgresDatabase database) throws SQLException {
		List<String> slots = new ArrayList<>();
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery(
						"SELECT slot_name FROM pg_replication_slots WHERE database = current_database() ORDER BY 1")) {
			while (row.next()) {
				slots.add(row.getString(1));
			}
		}
		return slots;
	}

	private ReplicationConsumer.Builder builder(PostgresDatabase database, String slot, String table) {
		return ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName(slot)
			.publicationName(table + "_pub")
			.tables(List.of(new TableId("public", table)))
			.statusInterval(Duration.ofSeconds(1))
			.stopTimeout(Duration.ofSeconds(10))
			.initialSnapshot(2, 1000);
	}

	private ReplicationConsumer start(ReplicationConsumer.Builder builder) {
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		consumer.start();
		return consumer;
	}

	/**
	 * Records the consumer's states and when its snapshot started and completed, in
	 * writer commits.
	 */
	private static final class Events implements ConsumerListener {

		final List<ConsumerState> states = new CopyOnWriteArrayList<>();

		final AtomicReference<@Nullable Lsn> started = new AtomicReference<>();

		private final Writer writer;

		private volatile long commitsAtStart = -1;

		private volatile long commitsAtEnd = -1;

		private volatile long startedNanos;

		private volatile long endedNanos;

		Events(Writer writer) {
			this.writer = writer;
			this.states.add(ConsumerState.STOPPED);
		}

		@Override
		public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
			this.states.add(current);
		}

		@Override
		public void snapshotStarted(Lsn consistentPoint, List<TableId> tables) {
			this.started.set(consistentPoint);
			this.commitsAtStart = this.writer.commits;
			this.startedNanos = System.nanoTime();
		}

		@Override
		public void snapshotCompleted(SnapshotProgress progress) {
			this.commitsAtEnd = this.writer.commits;
			this.endedNanos = System.nanoTime();
		}

		long writesDuring() {
			return this.commitsAtEnd - this.commitsAtStart;
		}

		long millis() {
			return (this.endedNanos - this.startedNanos) / 1_000_000;
		}

	}

	/**
	 * Inserts, updates and deletes rows of both tables in small transactions until
	 * stopped; new keys are never used before, so an insert's key is new to the table.
	 */
	private static final class Writer {

		volatile long commits;

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
			this.running.set(false);
			this.thread.join(30_000);
			assertThat(this.thread.isAlive()).isFalse();
			assertThat(this.failure.get()).as("writer failure").isNull();
		}

		private void run() {
			Random random = new Random();
			long nextId = KEYED + 1;
			int half = KEYLESS / 2;
			try (Connection connection = this.database.connect();
					PreparedStatement insert = connection.prepareStatement(
							"INSERT INTO snap_keyed VALUES (?, ?, md5(random()::text), ? / 100.0, now())");
					PreparedStatement update = connection
						.prepareStatement("UPDATE snap_keyed SET a = a + 1, b = md5(random()::text) WHERE id = ?");
					PreparedStatement delete = connection.prepareStatement("DELETE FROM snap_keyed WHERE id = ?");
					PreparedStatement insertKeyless = connection
						.prepareStatement("INSERT INTO snap_keyless VALUES (?, md5(random()::text))");
					PreparedStatement updateKeyless = connection.prepareStatement("UPDATE snap_keyless SET v = "
							+ "md5(random()::text) WHERE ctid = (SELECT ctid FROM snap_keyless WHERE k = ? LIMIT 1)");
					PreparedStatement deleteKeyless = connection.prepareStatement(
							"DELETE FROM snap_keyless WHERE ctid = (SELECT ctid FROM snap_keyless WHERE k = ? LIMIT 1)")) {
				connection.setAutoCommit(false);
				while (this.running.get()) {
					int choice = random.nextInt(12);
					if (choice < 4) {
						insert.setLong(1, nextId++);
						insert.setInt(2, random.nextInt(1000));
						insert.setInt(3, random.nextInt(100_000));
						insert.executeUpdate();
					}
					else if (choice < 9) {
						PreparedStatement statement = (choice < 7) ? update : delete;
						statement.setLong(1, 1 + (long) (random.nextDouble() * (nextId - 1)));
						statement.executeUpdate();
					}
					else {
						PreparedStatement statement = (choice == 9) ? insertKeyless
								: (choice == 10) ? updateKeyless : deleteKeyless;
						statement.setInt(1, random.nextInt(half));
						statement.executeUpdate();
					}
					connection.commit();
					this.commits++;
					Thread.sleep(3);
				}
			}
			catch (Throwable ex) {
				this.failure.set(ex);
			}
		}

	}

}
