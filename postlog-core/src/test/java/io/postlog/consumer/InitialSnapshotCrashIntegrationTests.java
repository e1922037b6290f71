package io.postlog.consumer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

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
@Tag("crash")
class InitialSnapshotCrashIntegrationTests {

	@RegisterExtension
	static final KillLoop killLoop = new KillLoop();

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
		Random random = killLoop.random("kills");
		SourceWriter writer = SourceWriter.on(database)
			.name("test-crash-writer")
			.random(killLoop.random("writer"))
			.firstKey(ROWS + 1)
			.pause(Duration.ofMillis(10))
			.start(Workloads.churn("crash_source"));
		int killedInStartUp = 0;
		int killedInSnapshot = 0;
		long started = System.nanoTime();
		try {
			for (int kill = 1; kill <= KILLS; kill++) {
				try (ChildJvm child = start(database, directory.resolve("child-" + kill + ".log"))) {
					if (kill % 3 == 1) {
						// Anywhere in the JVM's start, the set-up, the slot's creation.
						child.killAfter(KillLoop.between(random, 200, 1500));
					}
					else {
						child.awaitOutput("snapshot-started", Duration.ofMinutes(2));
						child.killAfter(KillLoop.between(random, 0, (int) (snapshotMillis * 3 / 4)));
					}
					String output = child.output();
					assertThat(output).as("child %d was killed before the hand-over", kill)
						.doesNotContain("handed-over");
					if (output.contains("snapshot-started")) {
						killedInSnapshot++;
					}
					else {
						killedInStartUp++;
					}
				}
			}
		}
		finally {
			writer.stop();
		}
		String lastOutput;
		try (ChildJvm last = start(database, directory.resolve("child-final.log"))) {
			last.awaitOutput("handed-over", Duration.ofMinutes(3));
			database.execute("INSERT INTO crash_source VALUES (" + InitialSnapshotCrashChild.SENTINEL + ", 0, 'last')");
			assertThat(last.awaitExit(Duration.ofMinutes(3))).as("last child: %s", last.describe()).isZero();
			lastOutput = last.output();
		}
		System.out.println(
				"[measure] initial snapshot crash test: " + KILLS + " kills of " + ROWS + " rows (" + killedInStartUp
						+ " in start-up, " + killedInSnapshot + " while rows were delivered), " + writer.transactions()
						+ " writer commits, " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)
						+ " s; server " + database.serverVersion());
		assertThat(killedInSnapshot).as("kills while snapshot rows were delivered").isPositive();
		assertThat(lastOutput).as("the last run snapshots again").contains("snapshot-started");
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

	private static ChildJvm start(PostgresDatabase database, Path log) {
		return ChildJvm.of(InitialSnapshotCrashChild.class)
			.args(database.jdbcUrl(), database.username(), "crash_slot", "crash_pub", "crash_source", "crash_sink",
					SLEEP_MILLIS)
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

}
