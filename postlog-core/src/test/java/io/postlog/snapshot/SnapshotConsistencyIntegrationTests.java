package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.snapshot.SnapshotHandOff.Action;
import io.postlog.snapshot.StreamedChanges.Streamed;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Nothing missed, nothing doubled across the hand-off: 200,000 keyed and 50,000 keyless
 * rows are snapshot through the crash-safe hand-off while a writer inserts, updates and
 * deletes in both tables; the snapshot rows followed by the slot's stream, applied as
 * upserts and deletes, equal the tables at the end, and no key is both a snapshot row and
 * an insert the stream delivers.
 */
@PostgresTest
class SnapshotConsistencyIntegrationTests {

	private static final int KEYED_ROWS = 200_000;

	private static final int KEYLESS_ROWS = 50_000;

	private static final TableId KEYED = TableId.parse("snap_keyed");

	private static final TableId KEYLESS = TableId.parse("snap_keyless");

	@Test
	void snapshotFollowedByTheStreamEqualsTheTablesWhileAWriterChangesThem(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE snap_keyed (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"INSERT INTO snap_keyed SELECT g, g % 1000, md5(g::text) FROM generate_series(1, " + KEYED_ROWS + ") g",
				"CREATE TABLE snap_keyless (a int, b text)", "ALTER TABLE snap_keyless REPLICA IDENTITY FULL",
				"INSERT INTO snap_keyless SELECT g % 1000, md5(g::text) FROM generate_series(1, " + KEYLESS_ROWS
						+ ") g",
				"ANALYZE snap_keyed", "ANALYZE snap_keyless",
				"CREATE PUBLICATION consistent_pub FOR TABLE snap_keyed, snap_keyless");
		boolean binary = database.serverVersion() >= 140000;
		State state = new State();
		Writer writer = new Writer(database);
		writer.start();
		ExportedSnapshot snapshot;
		SnapshotResult result;
		long commitsAtExport;
		try {
			await().until(() -> writer.commits.get() > 50);
			try (SnapshotHandOff handOff = SnapshotHandOff.open(database.connectReplication(), "consistent_slot",
					SlotLifecycle.CREATE_IF_MISSING, TableId.parse("postlog_snapshot"))) {
				try (Connection admin = database.connect()) {
					assertThat(handOff.decide(admin).action()).isEqualTo(Action.SNAPSHOT);
					snapshot = handOff.exportSnapshot(admin);
				}
				commitsAtExport = writer.commits.get();
				AtomicInteger delivered = new AtomicInteger();
				result = new SnapshotReader(SnapshotConnections.of(database.jdbcUrl(), database.username(), null),
						ValueDecoders.standard())
					.read(snapshot, List.of(KEYED, KEYLESS),
							SnapshotOptions.defaults()
								.withParallelism(2)
								.withChunkSize(20_000)
								.withBinary(binary)
								.withProgressInterval(Duration.ofSeconds(1)),
							(change) -> {
								state.snapshot(change);
								if (delivered.incrementAndGet() % 2000 == 0) {
									// Give the writer room to commit while the read runs.
									Thread.yield();
								}
							});
				assertThat(writer.commits.get()).as("writer commits during the read")
					.isGreaterThan(commitsAtExport + 20);
				try (Connection admin = database.connect()) {
					handOff.complete(admin);
				}
			}
			long commitsAtHandOff = writer.commits.get();
			await().atMost(Duration.ofSeconds(60)).until(() -> writer.commits.get() > commitsAtHandOff + 100);
		}
		finally {
			writer.stop();
		}
		assertThat(result.rows()).isEqualTo(state.snapshotRows);
		database.execute("INSERT INTO snap_keyed VALUES (-1, 0, 'last')");
		List<Streamed> streamed;
		try (StreamedChanges stream = StreamedChanges.open(database, "consistent_slot", "consistent_pub", binary,
				ValueDecoders.standard())) {
			streamed = stream.readUntil((change) -> change.operation() == Operation.INSERT
					&& change.table().equals(KEYED) && Long.valueOf(-1).equals(change.after().get("id")),
					Duration.ofSeconds(120));
		}
		Lsn consistentPoint = snapshot.consistentPoint();
		// The consistent point is where the record after the slot's last start-up record
		// begins: a commit written right there is after the snapshot, and streamed.
		assertThat(streamed)
			.allSatisfy((change) -> assertThat(change.commitLsn()).isGreaterThanOrEqualTo(consistentPoint));
		streamed.forEach(state::streamed);
		assertThat(state.streamedInserts.get(KEYED)).as("keyed inserts streamed").isGreaterThan(10);
		assertThat(state.streamedInserts.get(KEYLESS)).as("keyless inserts streamed").isGreaterThan(0);
		assertThat(SnapshotCrashIntegrationTests.differences(state.keyed, keyedTable(database))).as("keyed table")
			.isEmpty();
		assertThat(SnapshotCrashIntegrationTests.differences(state.keyless, keylessTable(database))).as("keyless table")
			.isEmpty();
		System.out.println("[measure] snapshot of " + result.rows() + " rows at " + consistentPoint + " in "
				+ result.duration().toMillis() + " ms (" + (binary ? "binary" : "text") + ", server "
				+ database.serverVersion() + "), writer commits: " + commitsAtExport + " before the export, "
				+ writer.commits.get() + " in all; " + streamed.size() + " streamed changes");
	}

	private static Map<Long, List<Object>> keyedTable(PostgresDatabase database) throws SQLException {
		Map<Long, List<Object>> rows = new HashMap<>();
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT id, a, b FROM snap_keyed")) {
			while (row.next()) {
				rows.put(row.getLong(1), Arrays.asList(row.getInt(2), row.getString(3)));
			}
		}
		return rows;
	}

	private static Map<List<Object>, Integer> keylessTable(PostgresDatabase database) throws SQLException {
		Map<List<Object>, Integer> rows = new HashMap<>();
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT a, b FROM snap_keyless")) {
			while (row.next()) {
				rows.merge(Arrays.asList(row.getInt(1), row.getString(2)), 1, Integer::sum);
			}
		}
		return rows;
	}

	/**
	 * What a listener applying snapshot rows and then the stream holds: upserts by key
	 * for the keyed table, a multiset of whole rows for the keyless one. Every step
	 * checks it applies to what is there, so a missed or doubled change fails where it
	 * happens.
	 */
	private static final class State {

		final Map<Long, List<Object>> keyed = new HashMap<>();

		final Map<List<Object>, Integer> keyless = new HashMap<>();

		final Set<Long> snapshotKeys = new HashSet<>();

		final Map<TableId, Integer> streamedInserts = new HashMap<>(Map.of(KEYED, 0, KEYLESS, 0));

		long snapshotRows;

		void snapshot(Change change) {
			assertThat(change.operation()).isEqualTo(Operation.SNAPSHOT);
			this.snapshotRows++;
			if (change.table().equals(KEYED)) {
				long id = id(change.after());
				assertThat(this.keyed.put(id, values(change.after()))).as("key %d twice in the snapshot", id).isNull();
				this.snapshotKeys.add(id);
			}
			else {
				add(values(change.after()));
			}
		}

		void streamed(Streamed change) {
			if (change.operation() == Operation.INSERT) {
				this.streamedInserts.merge(change.table(), 1, Integer::sum);
			}
			if (change.table().equals(KEYED)) {
				keyed(change);
			}
			else {
				keyless(change);
			}
		}

		private void keyed(Streamed change) {
			switch (change.operation()) {
				case INSERT -> {
					long id = id(change.after());
					assertThat(this.snapshotKeys).as("key %d both in the snapshot and inserted by the stream", id)
						.doesNotContain(id);
					assertThat(this.keyed.put(id, values(change.after()))).as("insert of present key %d", id).isNull();
				}
				case UPDATE -> {
					long id = id(change.after());
					assertThat(this.keyed.put(id, values(change.after()))).as("update of absent key %d", id)
						.isNotNull();
				}
				case DELETE -> {
					long id = id(change.before());
					assertThat(this.keyed.remove(id)).as("delete of absent key %d", id).isNotNull();
				}
				default -> throw new AssertionError(change.operation());
			}
		}

		private void keyless(Streamed change) {
			switch (change.operation()) {
				case INSERT -> add(values(change.after()));
				case UPDATE -> {
					remove(values(change.before()));
					add(values(change.after()));
				}
				case DELETE -> remove(values(change.before()));
				default -> throw new AssertionError(change.operation());
			}
		}

		private void add(List<Object> row) {
			this.keyless.merge(row, 1, Integer::sum);
		}

		private void remove(List<Object> row) {
			Integer count = this.keyless.get(row);
			assertThat(count).as("keyless row to remove is present").isNotNull();
			if (count == 1) {
				this.keyless.remove(row);
			}
			else {
				this.keyless.put(row, count - 1);
			}
		}

		private static long id(@Nullable Row row) {
			assertThat(row).isNotNull();
			return row.get("id", Long.class);
		}

		private static List<Object> values(@Nullable Row row) {
			assertThat(row).isNotNull();
			return Arrays.asList(row.get("a"), row.get("b"));
		}

	}

	/**
	 * Commits small transactions of inserts, updates and deletes in both tables, as fast
	 * as it can, until stopped. Keys are never reused, so an insert of a key the snapshot
	 * holds can only be a doubled transaction.
	 */
	private static final class Writer {

		final AtomicLong commits = new AtomicLong();

		private final PostgresDatabase database;

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

		private final Thread thread;

		private long nextId = KEYED_ROWS + 1;

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
			assertThat(this.thread.isAlive()).as("writer ended").isFalse();
			assertThat(this.failure.get()).as("writer failure").isNull();
		}

		private void run() {
			try (Connection connection = this.database.connect();
					PreparedStatement insert = connection
						.prepareStatement("INSERT INTO snap_keyed VALUES (?, ?, md5(random()::text))");
					PreparedStatement update = connection
						.prepareStatement("UPDATE snap_keyed SET a = a + 1, b = md5(random()::text) WHERE id = ?");
					PreparedStatement delete = connection.prepareStatement("DELETE FROM snap_keyed WHERE id = ?");
					PreparedStatement insertKeyless = connection
						.prepareStatement("INSERT INTO snap_keyless VALUES (?, md5(random()::text))");
					PreparedStatement updateKeyless = connection
						.prepareStatement("UPDATE snap_keyless SET b = md5(random()::text) WHERE ctid ="
								+ " (SELECT ctid FROM snap_keyless WHERE a = ? LIMIT 1)");
					PreparedStatement deleteKeyless = connection.prepareStatement("DELETE FROM snap_keyless"
							+ " WHERE ctid = (SELECT ctid FROM snap_keyless WHERE a = ? LIMIT 1)")) {
				connection.setAutoCommit(false);
				ThreadLocalRandom random = ThreadLocalRandom.current();
				while (this.running.get()) {
					int operations = 1 + random.nextInt(4);
					for (int i = 0; i < operations; i++) {
						int choice = random.nextInt(100);
						if (choice < 40) {
							insert.setLong(1, this.nextId++);
							insert.setInt(2, random.nextInt(1000));
							insert.executeUpdate();
						}
						else if (choice < 65) {
							update.setLong(1, 1 + random.nextLong(this.nextId - 1));
							update.executeUpdate();
						}
						else if (choice < 80) {
							delete.setLong(1, 1 + random.nextLong(this.nextId - 1));
							delete.executeUpdate();
						}
						else {
							PreparedStatement keyless = (choice < 90) ? insertKeyless
									: (choice < 95) ? updateKeyless : deleteKeyless;
							keyless.setInt(1, random.nextInt(1000));
							keyless.executeUpdate();
						}
					}
					connection.commit();
					this.commits.incrementAndGet();
				}
			}
			catch (Throwable ex) {
				this.failure.set(ex);
			}
		}

	}

}
