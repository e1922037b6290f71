package io.postlog.consumer;

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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Crash safety of the initial snapshot through {@link ReplicationConsumer}: a child JVM
 * taking the snapshot into a sink table is killed with SIGKILL ten times at random points
 * of it (some during start-up and the slot's creation, the others while rows are
 * delivered) while a writer changes the table; after a last, uninterrupted run the sink
 * equals the table, the slot exists, and no snapshot slot, reader connection or
 * replication connection is left behind. A kill during the snapshot must lead to a new
 * complete snapshot, never to streaming after a partial one.
 */
@PostgresTest
@Tag("snapshot-proof")
class InitialSnapshotCrashIntegrationTests {

	private static final int ROWS = Integer.getInteger("postlog.snapshot.crash.rows", 30_000);

	private static final int KILLS = 10;

	/** Sleep per batch of 256 rows: the snapshot lasts at least ROWS / 256 times this. */
	private static final long SLEEP_MILLIS = 25;

	@Test
	void killedAtRandomPointsOfTheSnapshotTheSinkStillEqualsTheTable(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE crash_source (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"INSERT INTO crash_source SELECT g, g % 1000, md5(g::text) FROM generate_series(1, " + ROWS + ") g",
				"ANALYZE crash_source", "CREATE TABLE crash_sink (id bigint PRIMARY KEY, a int, b text)");
		Path directory = Files.createDirectories(Paths.get("target", "initial-snapshot-crash-test"));
		long snapshotMillis = ROWS / 256 * SLEEP_MILLIS;
		Random random = new Random();
		Writer writer = new Writer(database);
		writer.start();
		int killedInStartUp = 0;
		int killedInSnapshot = 0;
		long started = System.nanoTime();
		try {
			for (int kill = 1; kill <= KILLS; kill++) {
				Path log = directory.resolve("child-" + kill + ".log");
				Process child = start(database, log);
				if (kill % 3 == 1) {
					// Anywhere in the JVM's start, the set-up, the slot's creation.
					child.waitFor(200 + random.nextInt(1500), TimeUnit.MILLISECONDS);
				}
				else {
					await().atMost(Duration.ofMinutes(2)).until(() -> read(log).contains("snapshot-started"));
					child.waitFor(random.nextInt((int) (snapshotMillis * 3 / 4)), TimeUnit.MILLISECONDS);
				}
				assertThat(child.isAlive()).as("child %d ran until killed:%n%s", kill, read(log)).isTrue();
				child.destroyForcibly();
				assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
				String output = read(log);
				assertThat(output).as("child %d was killed before the hand-over", kill).doesNotContain("handed-over");
				if (output.contains("snapshot-started")) {
					killedInSnapshot++;
				}
				else {
					killedInStartUp++;
				}
			}
		}
		finally {
			writer.stop();
		}
		Path log = directory.resolve("child-final.log");
		Process last = start(database, log);
		try {
			await().atMost(Duration.ofMinutes(3)).until(() -> read(log).contains("handed-over"));
			database.execute("INSERT INTO crash_source VALUES (" + InitialSnapshotCrashChild.SENTINEL + ", 0, 'last')");
			assertThat(last.waitFor(3, TimeUnit.MINUTES)).as("last child finished").isTrue();
			assertThat(last.exitValue()).as("last child:%n%s", read(log)).isZero();
		}
		finally {
			last.destroyForcibly();
		}
		System.out.println("[measure] initial snapshot crash test: " + KILLS + " kills of " + ROWS + " rows ("
				+ killedInStartUp + " in start-up, " + killedInSnapshot + " while rows were delivered), "
				+ writer.commits + " writer commits, " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)
				+ " s; server " + database.serverVersion());
		assertThat(killedInSnapshot).as("kills while snapshot rows were delivered").isPositive();
		assertThat(read(log)).as("the last run snapshots again").contains("snapshot-started");
		assertThat(InitialSnapshotIntegrationTests.differences(table(database, "crash_sink"),
				table(database, "crash_source")))
			.as("sink against the table")
			.isEmpty();
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			assertThat(InitialSnapshotIntegrationTests.slots(database)).containsExactly("crash_slot");
			try (Connection connection = database.connect();
					Statement statement = connection.createStatement();
					ResultSet row = statement.executeQuery("SELECT count(*) FROM pg_stat_activity"
							+ " WHERE datname = current_database() AND pid <> pg_backend_pid()")) {
				row.next();
				assertThat(row.getInt(1)).as("connections left to the database").isZero();
			}
		});
		database.execute("SELECT pg_drop_replication_slot('crash_slot')");
	}

	private static Process start(PostgresDatabase database, Path log) throws Exception {
		String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
		ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
				InitialSnapshotCrashChild.class.getName(), database.jdbcUrl(), database.username(), "crash_slot",
				"crash_pub", "crash_source", "crash_sink", Long.toString(SLEEP_MILLIS));
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
	 * Inserts, updates and deletes rows of the source table in small transactions until
	 * stopped.
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
					Thread.sleep(10);
				}
			}
			catch (Throwable ex) {
				this.failure.set(ex);
			}
		}

	}

}
