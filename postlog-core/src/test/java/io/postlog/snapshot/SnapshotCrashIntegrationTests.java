package io.postlog.snapshot;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
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

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import io.postlog.test.crash.KillLoop;
import io.postlog.test.crash.SourceWriter;
import io.postlog.test.crash.Workloads;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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
@Tag("crash")
class SnapshotCrashIntegrationTests {

	@RegisterExtension
	static final KillLoop killLoop = new KillLoop();

	private static final int ROWS = 100_000;

	private static final int KILLS = 10;

	@Test
	void killedAtRandomPointsTheReadModelStillEqualsTheTable(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE crash_source (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"INSERT INTO crash_source SELECT g, g % 1000, md5(g::text) FROM generate_series(1, " + ROWS + ") g",
				"ANALYZE crash_source", "CREATE TABLE crash_sink (id bigint PRIMARY KEY, a int, b text)",
				"CREATE PUBLICATION crash_pub FOR TABLE crash_source");
		Path directory = Files.createDirectories(Paths.get("target", "snapshot-crash-test"));
		Random random = killLoop.random("kills");
		SourceWriter writer = SourceWriter.on(database)
			.name("test-crash-writer")
			.random(killLoop.random("writer"))
			.firstKey(ROWS + 1)
			.pause(Duration.ofMillis(5))
			.start(Workloads.churn("crash_source"));
		int killedBeforeHandOver = 0;
		int snapshotsTaken = 0;
		try {
			for (int kill = 1; kill <= KILLS; kill++) {
				try (ChildJvm child = start(database, directory.resolve("child-" + kill + ".log"))) {
					if (kill == KILLS / 2 + 1) {
						// From here on the slot is handed over and the kills hit the
						// stream.
						child.awaitOutput("handed-over", Duration.ofMinutes(5));
					}
					child.killAfter(KillLoop.between(random, 500, 5000));
					String output = child.output();
					if (!output.contains("handed-over")) {
						killedBeforeHandOver++;
					}
					if (output.contains("snapshot rows=")) {
						snapshotsTaken++;
					}
				}
			}
		}
		finally {
			writer.stop();
		}
		String lastOutput;
		try (ChildJvm last = start(database, directory.resolve("child-final.log"))) {
			last.awaitOutput("handed-over", Duration.ofMinutes(5));
			database.execute("INSERT INTO crash_source VALUES (" + SnapshotCrashChild.SENTINEL + ", 0, 'last')");
			assertThat(last.awaitExit(Duration.ofMinutes(4))).as("last child: %s", last.describe()).isZero();
			lastOutput = last.output();
		}
		System.out.println("[measure] " + KILLS + " kills, " + killedBeforeHandOver + " before the hand-over, "
				+ snapshotsTaken + " complete snapshots among the killed runs, " + writer.transactions()
				+ " writer commits; server " + database.serverVersion());
		assertThat(killedBeforeHandOver).as("kills that hit the snapshot").isPositive();
		assertThat(lastOutput).as("the last run streams a slot handed over before").doesNotContain("snapshot rows=");
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

	private static ChildJvm start(PostgresDatabase database, Path log) {
		return ChildJvm.of(SnapshotCrashChild.class)
			.args(database.jdbcUrl(), database.username(), "crash_slot", "crash_pub", "crash_source", "crash_sink")
			.start(log);
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

}
