package io.postlog.snapshot;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Crash safety of the hand-off: a process taking the snapshot and then streaming is
 * killed with SIGKILL ten times at random moments while a writer changes the table; after
 * a last, uninterrupted run its read model equals the table, and neither a snapshot slot
 * nor a reader connection is left behind. A kill during the snapshot must lead to a new
 * complete snapshot, never to streaming after a partial one.
 */
@PostgresTest
class SnapshotCrashIntegrationTests {

	private static final int ROWS = 100_000;

	private static final int KILLS = 10;

	@Test
	void killedAtRandomPointsTheReadModelStillEqualsTheTable(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE crash_source (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"INSERT INTO crash_source SELECT g, g % 1000, md5(g::text) FROM generate_series(1, " + ROWS + ") g",
				"ANALYZE crash_source", "CREATE TABLE crash_sink (id bigint PRIMARY KEY, a int, b text)",
				"CREATE PUBLICATION crash_pub FOR TABLE crash_source");
		Path directory = Files.createDirectories(Paths.get("target", "snapshot-crash-test"));
		Random random = new Random();
		Writer writer = new Writer(database);
		writer.start();
		int killedBeforeHandOver = 0;
		int snapshotsTaken = 0;
		try {
			for (int kill = 1; kill <= KILLS; kill++) {
				Path log = directory.resolve("child-" + kill + ".log");
				Process child = start(database, log);
				if (kill == KILLS / 2 + 1) {
					// From here on the slot is handed over and the kills hit the stream.
					await().atMost(Duration.ofMinutes(2)).until(() -> read(log).contains("handed-over"));
				}
				long delay = 500 + random.nextInt(5000);
				boolean exited = child.waitFor(delay, TimeUnit.MILLISECONDS);
				assertThat(exited).as("child %d ran until killed:%n%s", kill, read(log)).isFalse();
				child.destroyForcibly();
				assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
				String output = read(log);
				if (!output.contains("handed-over")) {
					killedBeforeHandOver++;
				}
				if (output.contains("snapshot rows=")) {
					snapshotsTaken++;
				}
			}
		}
		finally {
			writer.stop();
		}
		Path log = directory.resolve("child-final.log");
		Process last = start(database, log);
		try {
			await().atMost(Duration.ofMinutes(2)).until(() -> read(log).contains("handed-over"));
			database.execute("INSERT INTO crash_source VALUES (" + SnapshotCrashChild.SENTINEL + ", 0, 'last')");
			assertThat(last.waitFor(4, TimeUnit.MINUTES)).as("last child finished").isTrue();
			assertThat(last.exitValue()).as("last child:%n%s", read(log)).isZero();
		}
		finally {
			last.destroyForcibly();
		}
		System.out.println("[measure] " + KILLS + " kills, " + killedBeforeHandOver + " before the hand-over, "
				+ snapshotsTaken + " complete snapshots among the killed runs, " + writer.commits
				+ " writer commits; server " + database.serverVersion());
		assertThat(killedBeforeHandOver).as("kills that hit the snapshot").isPositive();
		assertThat(read(log)).as("the last run streams a slot handed over before").doesNotContain("snapshot rows=");
		assertThat(differences(table(database, "crash_sink"), table(database, "crash_source")))
			.as("read model against the table")
			.isEmpty();
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(slots(database)).containsExactly("crash_slot");
			try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
				assertThat(ExportedSnapshotIntegrationTests.count(statement,
						"SELECT count(*) FROM pg_stat_activity WHERE application_name = 'postlog-snapshot'"))
					.isZero();
			}
		});
		database.execute("SELECT pg_drop_replication_slot('crash_slot')");
	}

	private static Process start(PostgresDatabase database, Path log) throws Exception {
		String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
		ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
				SnapshotCrashChild.class.getName(), database.jdbcUrl(), database.username(), "crash_slot", "crash_pub",
				"crash_source", "crash_sink");
		builder.redirectErrorStream(true);
		builder.redirectOutput(log.toFile());
		return builder.start();
	}

	private static String read(Path file) throws Exception {
		return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
	}

	private static Map<Long, List<Object>> table(PostgresDatabase database, String table) throws SQLException {
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

	/**
	 * Returns how two tables keyed by id differ: up to 20 keys, then the total.
	 */
	static <K, V> List<String> differences(Map<K, V> actual, Map<K, V> expected) {
		List<String> differences = new ArrayList<>();
		expected.forEach((key, value) -> {
			if (!actual.containsKey(key)) {
				differences.add("missing " + key);
			}
			else if (!actual.get(key).equals(value)) {
				differences.add("different " + key);
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

	private static List<String> slots(PostgresDatabase database) throws SQLException {
		List<String> slots = new ArrayList<>();
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT slot_name FROM pg_replication_slots"
						+ " WHERE database = current_database() AND slot_name LIKE 'crash%'")) {
			while (row.next()) {
				slots.add(row.getString(1));
			}
		}
		return slots;
	}

	/**
	 * Inserts, updates and deletes rows of the source table in small transactions, about
	 * 200 a second, until stopped.
	 */
	private static final class Writer {

		volatile long commits;

		private final PostgresDatabase database;

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

		private final Thread thread;

		Writer(PostgresDatabase database) {
			this.database = database;
			this.thread = new Thread(this::run, "test-crash-writer");
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
			long nextId = ROWS + 1;
			try (Connection connection = this.database.connect();
					PreparedStatement insert = connection
						.prepareStatement("INSERT INTO crash_source VALUES (?, ?, md5(random()::text))");
					PreparedStatement update = connection
						.prepareStatement("UPDATE crash_source SET a = a + 1, b = md5(random()::text) WHERE id = ?");
					PreparedStatement delete = connection.prepareStatement("DELETE FROM crash_source WHERE id = ?")) {
				connection.setAutoCommit(false);
				while (this.running.get()) {
					for (int i = 0; i < 3; i++) {
						int choice = random.nextInt(10);
						if (choice < 4) {
							insert.setLong(1, nextId++);
							insert.setInt(2, random.nextInt(1000));
							insert.executeUpdate();
						}
						else {
							PreparedStatement statement = (choice < 8) ? update : delete;
							statement.setLong(1, 1 + (long) (random.nextDouble() * (nextId - 1)));
							statement.executeUpdate();
						}
					}
					connection.commit();
					this.commits++;
					Thread.sleep(5);
				}
			}
			catch (Throwable ex) {
				this.failure.set(ex);
			}
		}

	}

}
