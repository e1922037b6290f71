package io.postlog.consumer;

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
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.snapshot.KeylessTableException;
import io.postlog.snapshot.SnapshotReadException;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.SourceWriter;
import io.postlog.types.ValueDecoder;
import io.postlog.types.ValueDecoders;
import io.postlog.types.ValueDecodingException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Backfills while streaming on a real server: a table of 100,000 rows backfilled while a
 * writer updates, deletes and inserts at about 500 transactions a second, through a
 * subscription on lanes (the read model equals the table, streamed changes keep arriving
 * during the backfill, no watermark reaches a subscription); TOASTed rows updated in
 * another column while they are backfilled (no update ever carries an
 * {@code UnchangedToast} for a row the subscription was not given whole, and the big
 * column ends equal to the table's); a keyless table refused; a request past the queue
 * bound refused; a cancelled backfill; a value that does not decode, which fails the
 * backfill and leaves the stream running.
 */
@PostgresTest
@Tag("matrix")
class BackfillIntegrationTests {

	static final int ROWS = Integer.getInteger("postlog.backfill.proof.rows", 100_000);

	private static final long SENTINEL = -1;

	/**
	 * The most updates of the TOAST test's writer: six seconds at its 500 a second; a
	 * quiet machine backfills the table in about one.
	 */
	private static final long TOAST_UPDATES = 3_000;

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void backfillWhileWritingEqualsTheTableAndTheStreamKeepsFlowing(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE bf_orders (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"INSERT INTO bf_orders SELECT g, g % 1000, md5(g::text) FROM generate_series(1, " + ROWS + ") g",
				"ANALYZE bf_orders");
		Map<Long, List<Object>> model = new ConcurrentHashMap<>();
		AtomicLong snapshotRows = new AtomicLong();
		AtomicLong streamedDuring = new AtomicLong();
		AtomicBoolean backfilling = new AtomicBoolean();
		List<String> prefixes = new CopyOnWriteArrayList<>();
		Set<String> tablesSeen = ConcurrentHashMap.newKeySet();
		ReplicationConsumer.Builder builder = builder(database, "bf_slot", "bf_orders", 5000)
			.subscribe(Subscription.onChange("model", (change) -> {
				tablesSeen.add(change.table().name());
				if (change.operation() == Operation.SNAPSHOT) {
					snapshotRows.incrementAndGet();
				}
				else if (backfilling.get()) {
					streamedDuring.incrementAndGet();
				}
				apply(model, change);
			}).withConcurrency(4));
		if (database.serverVersion() >= 140000) {
			// Watermarks are logical messages there: none may reach a message
			// subscription.
			builder.subscribe(
					Subscription.onMessage("messages", (LogicalMessage message) -> prefixes.add(message.prefix())));
		}
		ReplicationConsumer consumer = start(builder);
		await().atMost(Duration.ofMinutes(1)).until(() -> consumer.state() == ConsumerState.RUNNING);
		SourceWriter writer = writer(database, "bf_orders", ROWS, false, new Random());
		Backfill backfill;
		try {
			Thread.sleep(300);
			backfilling.set(true);
			backfill = consumer.backfill(List.of(TableId.parse("bf_orders")));
			assertThat(backfill.tables()).containsExactly(TableId.parse("bf_orders"));
			// The catalog's estimate, scaled to the table's size now.
			assertThat(backfill.rowsEstimated()).isBetween(ROWS * 9L / 10, ROWS * 11L / 10);
			await().atMost(Duration.ofMinutes(2)).until(() -> backfill.state() == Backfill.State.COMPLETED);
			backfilling.set(false);
			Thread.sleep(300);
		}
		finally {
			writer.stop();
		}
		database.execute("INSERT INTO bf_orders VALUES (" + SENTINEL + ", 0, 'last')");
		await().atMost(Duration.ofMinutes(1)).until(() -> model.containsKey(SENTINEL));
		System.out.println("[measure] backfill of " + backfill.rowsDone() + " rows (" + snapshotRows.get()
				+ " delivered), " + streamedDuring.get() + " streamed changes during it, " + writer.transactions()
				+ " writer commits (" + writer.rate() + " tx/s); server " + database.serverVersion());
		assertThat(streamedDuring.get()).as("streamed changes during the backfill").isGreaterThan(100);
		assertThat(snapshotRows.get()).as("SNAPSHOT rows").isBetween(ROWS / 2L, ROWS + writer.transactions());
		assertThat(backfill.rowsDone()).isGreaterThanOrEqualTo(snapshotRows.get());
		assertThat(prefixes).doesNotContain("postlog.watermark");
		// Before 14 the watermarks are rows of postlog_watermark, published too.
		assertThat(tablesSeen).containsOnly("bf_orders");
		assertThat(consumer.backfills()).containsExactly(backfill);
		model.remove(SENTINEL);
		database.execute("DELETE FROM bf_orders WHERE id = " + SENTINEL);
		assertThat(differences(model, table(database, "bf_orders"))).as("read model against the table").isEmpty();
		assertThat(progressRows(database, "bf_slot")).containsExactly(backfill.id() + " done");
	}

	@Test
	void toastedRowsUpdatedDuringTheBackfillAreNeverGivenAsUnchangedToast(PostgresDatabase database) throws Exception {
		int rows = 400;
		database.execute("CREATE TABLE bf_big (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"ALTER TABLE bf_big ALTER COLUMN b SET STORAGE EXTERNAL",
				"INSERT INTO bf_big SELECT g, 0, (SELECT string_agg(md5(g::text || i::text), '') FROM "
						+ "generate_series(1, 640) i) FROM generate_series(1, " + rows + ") g",
				"ANALYZE bf_big");
		Map<Long, List<Object>> model = new ConcurrentHashMap<>();
		List<String> violations = new CopyOnWriteArrayList<>();
		AtomicLong unchangedSeen = new AtomicLong();
		// Before the backfill was asked for, the subscription had no way to a whole row.
		AtomicReference<Lsn> requested = new AtomicReference<>(Lsn.of(-1));
		ReplicationConsumer consumer = start(builder(database, "bf_big_slot", "bf_big", 25).changeHandler((change) -> {
			Row after = change.after();
			if (after != null && after.isUnchangedToast("b")) {
				unchangedSeen.incrementAndGet();
				Long id = after.get("id", Long.class);
				List<Object> kept = model.get(id);
				if (kept == null && change.commitLsn().isAfter(requested.get())) {
					violations.add(change.operation() + " of id " + id + " at " + change.commitLsn());
				}
				if (kept != null) {
					model.put(id, Arrays.asList(after.get("a"), kept.get(1)));
				}
				return;
			}
			apply(model, change);
		}));
		await().atMost(Duration.ofMinutes(1)).until(() -> consumer.state() == ConsumerState.RUNNING);
		// Each of these updates costs the stream a read of the row's TOASTed value while
		// the
		// table is backfilled; unbounded, a writer faster than a loaded machine merges
		// them
		// would keep the stream, and so the chunks' high watermarks, ever further behind
		// (PostgreSQL 10 in CI: no chunk settled in the last 80 s of two minutes).
		SourceWriter writer = writer(database, "bf_big", rows, true, new Random(), TOAST_UPDATES);
		Backfill backfill;
		try {
			Thread.sleep(300);
			backfill = consumer.backfill(List.of(TableId.parse("bf_big")));
			requested.set(currentLsn(database));
			await().atMost(Duration.ofMinutes(2)).until(() -> backfill.state() == Backfill.State.COMPLETED);
		}
		finally {
			writer.stop();
		}
		database.execute("UPDATE bf_big SET a = -1 WHERE id = 1");
		await().atMost(Duration.ofMinutes(1)).until(() -> {
			List<Object> first = model.get(1L);
			return first != null && Integer.valueOf(-1).equals(first.get(0));
		});
		// After the backfill the stream sends unchanged TOAST again: the row was given
		// whole.
		assertThat(unchangedSeen.get()).as("updates with the big column unchanged after the backfill").isPositive();
		System.out.println("[measure] TOAST backfill of " + backfill.rowsDone() + " rows with " + writer.transactions()
				+ " updates; server " + database.serverVersion());
		assertThat(writer.transactions()).as("updates during the backfill").isGreaterThan(50);
		assertThat(violations).isEmpty();
		assertThat(differences(model, table(database, "bf_big"))).as("read model against the table").isEmpty();
	}

	@Test
	void aDeployThatAddsATableBackfillsItWhileTheOtherTablesStream(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE bf_other (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"CREATE TABLE bf_added (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"INSERT INTO bf_added SELECT g, g % 1000, md5(g::text) FROM generate_series(1, 50000) g",
				"ANALYZE bf_added");
		Map<Long, List<Object>> other = new ConcurrentHashMap<>();
		ReplicationConsumer before = start(builder(database, "bf_deploy_slot", "bf_other", 5000)
			.publicationMode(io.postlog.admin.PublicationMode.SYNC)
			.changeHandler((change) -> apply(other, change)));
		await().atMost(Duration.ofMinutes(1)).until(() -> before.state() == ConsumerState.RUNNING);
		SourceWriter writer = writer(database, "bf_other", 0, false, new Random());
		Map<Long, List<Object>> added = new ConcurrentHashMap<>();
		AtomicLong addedSnapshots = new AtomicLong();
		AtomicLong otherDuring = new AtomicLong();
		ReplicationConsumer after;
		try {
			Thread.sleep(500);
			before.stop();
			// The deploy: the same slot, a listener on one more table.
			after = start(builder(database, "bf_deploy_slot", "bf_other", 5000)
				.tables(List.of(TableId.parse("bf_other"), TableId.parse("bf_added")))
				.publicationMode(io.postlog.admin.PublicationMode.SYNC)
				.backfillNewTables(true)
				.changeHandler((change) -> {
					if (change.table().name().equals("bf_added")) {
						if (change.operation() == Operation.SNAPSHOT) {
							addedSnapshots.incrementAndGet();
						}
						apply(added, change);
					}
					else {
						if (addedSnapshots.get() > 0 && addedSnapshots.get() < 50000) {
							otherDuring.incrementAndGet();
						}
						apply(other, change);
					}
				}));
			await().atMost(Duration.ofMinutes(2))
				.until(() -> !after.backfills().isEmpty()
						&& after.backfills().get(0).state() == Backfill.State.COMPLETED);
			Thread.sleep(300);
		}
		finally {
			writer.stop();
		}
		database.execute("INSERT INTO bf_other VALUES (" + SENTINEL + ", 0, 'last')");
		await().atMost(Duration.ofMinutes(1)).until(() -> other.containsKey(SENTINEL));
		other.remove(SENTINEL);
		database.execute("DELETE FROM bf_other WHERE id = " + SENTINEL);
		System.out.println("[measure] deploy backfill of bf_added: " + addedSnapshots.get() + " SNAPSHOT rows, "
				+ otherDuring.get() + " changes of bf_other during it; server " + database.serverVersion());
		assertThat(after.backfills().get(0).tables()).containsExactly(TableId.parse("bf_added"));
		assertThat(addedSnapshots.get()).isEqualTo(50000);
		assertThat(otherDuring.get()).as("other table's changes during the backfill").isPositive();
		assertThat(differences(added, table(database, "bf_added"))).isEmpty();
		assertThat(differences(other, table(database, "bf_other"))).as("nothing lost of the other table").isEmpty();
	}

	@Test
	void aKeylessTableIsRefused(PostgresDatabase database) {
		database.execute("CREATE TABLE bf_keyless (k int, v text)", "ALTER TABLE bf_keyless REPLICA IDENTITY FULL");
		ReplicationConsumer consumer = start(
				builder(database, "bf_keyless_slot", "bf_keyless", 100).changeHandler((change) -> {
				}));
		await().atMost(Duration.ofMinutes(1)).until(() -> consumer.state() == ConsumerState.RUNNING);
		assertThatExceptionOfType(KeylessTableException.class)
			.isThrownBy(() -> consumer.backfill(List.of(TableId.parse("bf_keyless"))))
			.withMessageContaining("public.bf_keyless")
			.withMessageContaining("no primary key and no replica identity index");
		assertThat(consumer.backfills()).isEmpty();
	}

	@Test
	void aRequestPastTheQueueBoundIsRefusedBeforeAnythingIsRecorded(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE bf_bound (id int PRIMARY KEY, v text)",
				"INSERT INTO bf_bound SELECT g, md5(g::text) FROM generate_series(1, 1000) g");
		java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
		ReplicationConsumer consumer = start(
				builder(database, "bf_bound_slot", "bf_bound", 100).maxQueuedBackfills(2).changeHandler((change) -> {
					if (change.operation() == Operation.SNAPSHOT) {
						// Holds the first backfill RUNNING while the test fills the
						// queue.
						release.await();
					}
				}));
		try {
			await().atMost(Duration.ofMinutes(1)).until(() -> consumer.state() == ConsumerState.RUNNING);
			List<TableId> tables = List.of(TableId.parse("bf_bound"));
			Backfill running = consumer.backfill(tables);
			Backfill pending = consumer.backfill(tables);
			assertThatExceptionOfType(BackfillQueueFullException.class).isThrownBy(() -> consumer.backfill(tables))
				.withMessage("Backfill refused: the consumer of slot bf_bound_slot already holds 2 unfinished "
						+ "backfills (pending or running), the most it queues; ask again once one finished, "
						+ "or cancel one")
				.satisfies((ex) -> assertThat(ex.maxQueued()).isEqualTo(2));
			assertThat(consumer.backfills()).extracting(Backfill::id)
				.containsExactlyInAnyOrder(running.id(), pending.id());
			assertThat(progressRows(database, "bf_bound_slot")).hasSize(2);
			pending.cancel();
			Backfill next = consumer.backfill(tables);
			assertThat(consumer.backfills()).extracting(Backfill::id).contains(next.id());
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void aCancelledBackfillDeliversNothingMoreAndIsForgotten(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE bf_cancel (id int PRIMARY KEY, v text)",
				"INSERT INTO bf_cancel SELECT g, md5(g::text) FROM generate_series(1, 20000) g");
		AtomicLong snapshotRows = new AtomicLong();
		ReplicationConsumer consumer = start(
				builder(database, "bf_cancel_slot", "bf_cancel", 100).changeHandler((change) -> {
					if (change.operation() == Operation.SNAPSHOT) {
						snapshotRows.incrementAndGet();
						Thread.sleep(1);
					}
				}));
		await().atMost(Duration.ofMinutes(1)).until(() -> consumer.state() == ConsumerState.RUNNING);
		Backfill backfill = consumer.backfill(List.of(TableId.parse("bf_cancel")));
		await().atMost(Duration.ofMinutes(1)).until(() -> snapshotRows.get() > 300);
		backfill.cancel();
		await().atMost(Duration.ofMinutes(1)).until(() -> backfill.state() == Backfill.State.CANCELLED);
		long delivered = snapshotRows.get();
		Thread.sleep(500);
		assertThat(snapshotRows.get()).isEqualTo(delivered).isLessThan(20000);
		assertThat(progressRows(database, "bf_cancel_slot")).isEmpty();
	}

	@Test
	void aValueThatDoesNotDecodeFailsTheBackfillAndNotTheStream(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE bf_undecodable (id int PRIMARY KEY, addr inet)",
				"INSERT INTO bf_undecodable SELECT g, NULL FROM generate_series(1, 1000) g",
				"UPDATE bf_undecodable SET addr = '10.0.0.66' WHERE id = 700");
		// The runner decodes each chunk as it reads it: the chunk holding row 700 fails
		// there, before its high watermark, and nothing of it is delivered.
		ValueDecoder refusing = new ValueDecoder() {

			@Override
			public Object decodeText(byte[] utf8) {
				throw new ValueDecodingException(869, "refused by the test");
			}

			@Override
			public Object decodeBinary(byte[] value) {
				throw new ValueDecodingException(869, "refused by the test");
			}

		};
		List<Integer> snapshotIds = new CopyOnWriteArrayList<>();
		List<Integer> streamedIds = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(builder(database, "bf_undecodable_slot", "bf_undecodable", 100)
			.valueDecoders(ValueDecoders.standard().withDecoder(869, refusing))
			.changeHandler((change) -> {
				int id = change.after().get("id", Integer.class);
				(change.operation() == Operation.SNAPSHOT ? snapshotIds : streamedIds).add(id);
			}));
		await().atMost(Duration.ofMinutes(1)).until(() -> consumer.state() == ConsumerState.RUNNING);
		Backfill backfill = consumer.backfill(List.of(TableId.parse("bf_undecodable")));
		await().atMost(Duration.ofMinutes(1)).until(() -> backfill.state() == Backfill.State.FAILED);
		assertThat(backfill.failure()).isInstanceOf(SnapshotReadException.class)
			.hasMessageContaining("column 'addr' of table public.bf_undecodable")
			.hasMessageNotContaining("10.0.0.66");
		// Chunks of 100 rows in key order, two at most in flight: chunks 1-5 had
		// settled before chunk 7 was read, chunk 6 went or was dropped with the backfill,
		// and the chunk holding row 700 went out not at all.
		assertThat(snapshotIds).hasSizeBetween(500, 600).allMatch((id) -> id <= 600);
		database.execute("INSERT INTO bf_undecodable VALUES (1001, NULL)");
		await().atMost(Duration.ofMinutes(1)).until(() -> streamedIds.contains(1001));
		assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
		assertThat(progressRows(database, "bf_undecodable_slot")).doesNotContain(backfill.id() + " done");
	}

	static ReplicationConsumer.Builder builder(PostgresDatabase database, String slot, String table, int chunkSize) {
		return ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName(slot)
			.publicationName(table + "_pub")
			.tables(List.of(new TableId("public", table)))
			.statusInterval(Duration.ofSeconds(1))
			.stopTimeout(Duration.ofSeconds(10))
			.backfills(chunkSize);
	}

	private ReplicationConsumer start(ReplicationConsumer.Builder builder) {
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		consumer.start();
		return consumer;
	}

	static void apply(Map<Long, List<Object>> model, Change change) {
		if (change.operation() == Operation.DELETE) {
			model.remove(change.before().get("id", Long.class));
			return;
		}
		Row row = change.after();
		model.put(row.get("id", Long.class), Arrays.asList(row.get("a"), row.get("b")));
	}

	static Map<Long, List<Object>> table(PostgresDatabase database, String table) throws SQLException {
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

	private static Lsn currentLsn(PostgresDatabase database) throws SQLException {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT pg_current_wal_lsn()::text")) {
			row.next();
			return Lsn.parse(row.getString(1));
		}
	}

	static List<String> progressRows(PostgresDatabase database, String slot) throws SQLException {
		List<String> rows = new ArrayList<>();
		try (Connection connection = database.connect();
				PreparedStatement statement = connection.prepareStatement(
						"SELECT backfill_id, done FROM postlog_backfill WHERE slot_name = ? ORDER BY backfill_id")) {
			statement.setString(1, slot);
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					rows.add(row.getString(1) + (row.getBoolean(2) ? " done" : " open"));
				}
			}
		}
		return rows;
	}

	static <K, V> List<String> differences(Map<K, V> actual, Map<K, V> expected) {
		return InitialSnapshotIntegrationTests.differences(actual, expected);
	}

	/**
	 * Starts a writer that updates, deletes and inserts rows of a table
	 * {@code (id bigint, a int, b text)} in one-change transactions on a schedule of 500
	 * a second, as the proof asks, until stopped; inserted keys are new.
	 * @param rows the keys updated and deleted are drawn from 1 to this
	 * @param updatesOnly whether it only updates {@code a} (leaving {@code b}'s TOAST
	 * unchanged)
	 */
	static SourceWriter writer(PostgresDatabase database, String table, long rows, boolean updatesOnly, Random random) {
		return writer(database, table, rows, updatesOnly, random, Long.MAX_VALUE);
	}

	/**
	 * A writer of up to 500 transactions a second to the table, which stops by itself
	 * after {@code limit} of them.
	 */
	static SourceWriter writer(PostgresDatabase database, String table, long rows, boolean updatesOnly, Random random,
			long limit) {
		return SourceWriter.on(database)
			.name("test-backfill-writer")
			.random(random)
			.firstKey(rows + 1_000_000)
			.period(Duration.ofNanos(2_000_000))
			.limit(limit)
			.start((statement, tally) -> {
				int choice = updatesOnly ? 5 : tally.random().nextInt(10);
				if (choice < 2) {
					statement.executeUpdate("INSERT INTO " + table + " VALUES (" + tally.nextKey() + ", "
							+ tally.random().nextInt(1000) + ", md5(random()::text))");
					tally.inserted(1);
				}
				else {
					long key = 1 + (long) (tally.random().nextDouble() * rows);
					statement.executeUpdate((choice >= 8) ? "DELETE FROM " + table + " WHERE id = " + key
							: updatesOnly ? "UPDATE " + table + " SET a = a + 1 WHERE id = " + key
									: "UPDATE " + table + " SET a = a + 1, b = md5(random()::text) WHERE id = " + key);
				}
			});
	}

}
