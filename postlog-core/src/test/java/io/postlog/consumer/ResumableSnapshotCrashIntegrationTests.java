package io.postlog.consumer;

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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import io.postlog.test.crash.KillLoop;
import io.postlog.test.crash.SlotProbe;
import io.postlog.test.crash.SourceWriter;
import io.postlog.test.crash.Workloads;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The initial snapshot resumes after a crash instead of starting over: a child JVM taking
 * a snapshot of 200,000 rows into a sink table, whose listener never starts its model
 * over, is killed with SIGKILL ten times at random points of the snapshot (or of the
 * backfill resuming it) while a writer inserts, updates and deletes rows anywhere in the
 * table, delivered ones included. After a last, uninterrupted run the sink equals the
 * table, only the first run took a fresh snapshot, and fewer than 1.2 times the table's
 * rows were delivered as {@code SNAPSHOT} over all runs.
 */
@PostgresTest
@Tag("crash")
class ResumableSnapshotCrashIntegrationTests {

	@RegisterExtension
	static final KillLoop killLoop = new KillLoop();

	private static final int ROWS = 200_000;

	private static final int KILLS = 10;

	private static final int CHUNK_SIZE = 2_000;

	/** Rows delivered per millisecond slept: a whole snapshot lasts at least 20 s. */
	private static final int ROWS_PER_SLEEP = 10;

	private static final Pattern SNAPSHOT_ROWS = Pattern.compile("^snapshot-rows (\\d+)$", Pattern.MULTILINE);

	@Test
	void killedTenTimesTheSnapshotResumesAndTheSinkEqualsTheTable(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE resume_source (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"INSERT INTO resume_source SELECT g, g % 1000, md5(g::text) FROM generate_series(1, " + ROWS + ") g",
				"ANALYZE resume_source", "CREATE TABLE resume_sink (id bigint PRIMARY KEY, a int, b text)");
		Path directory = Files.createDirectories(Paths.get("target", "resumable-snapshot-crash-test"));
		Random random = killLoop.random("kills");
		SourceWriter writer = SourceWriter.on(database)
			.name("test-resume-writer")
			.random(killLoop.random("writer"))
			.firstKey(ROWS + 1)
			.pause(Duration.ofMillis(10))
			.start(Workloads.churn("resume_source"));
		List<String> outputs = new ArrayList<>();
		long started = System.nanoTime();
		try {
			for (int kill = 1; kill <= KILLS; kill++) {
				try (ChildJvm child = start(database, directory.resolve("child-" + kill + ".log"))) {
					child.awaitOutput("snapshot-rows", Duration.ofMinutes(2));
					child.killAfter(KillLoop.between(random, 0, 1500));
					String output = child.output();
					assertThat(output).as("child %d was killed before the snapshot completed", kill)
						.doesNotContain("snapshot-complete");
					outputs.add(output);
				}
			}
		}
		finally {
			writer.stop();
		}
		try (ChildJvm last = start(database, directory.resolve("child-final.log"))) {
			last.awaitOutput("snapshot-complete", Duration.ofMinutes(4));
			database.execute("INSERT INTO resume_source VALUES (" + ResumableSnapshotCrashChild.SENTINEL + ", 0, 'x')");
			assertThat(last.awaitExit(Duration.ofMinutes(3))).as("last child: %s", last.describe()).isZero();
			outputs.add(last.output());
		}
		Map<Long, List<Object>> source = table(database, "resume_source");
		long snapshotRows = outputs.stream().mapToLong(ResumableSnapshotCrashIntegrationTests::snapshotRows).sum();
		long freshSnapshots = outputs.stream().filter((output) -> output.contains("snapshot-started")).count();
		System.out.println("[measure] resumable snapshot crash test: " + KILLS + " kills of " + ROWS + " rows, "
				+ snapshotRows + " SNAPSHOT rows delivered for " + source.size() + " rows, " + writer.transactions()
				+ " writer commits, " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) + " s; server "
				+ database.serverVersion());
		assertThat(freshSnapshots).as("runs that took a fresh snapshot").isEqualTo(1);
		assertThat(InitialSnapshotIntegrationTests.differences(table(database, "resume_sink"), source))
			.as("sink against the table")
			.isEmpty();
		assertThat(snapshotRows).as("SNAPSHOT rows delivered over all runs").isLessThan(source.size() * 12L / 10);
		SlotProbe slot = new SlotProbe(database, "resume_slot");
		slot.awaitInactive(Duration.ofSeconds(30));
		database.execute("SELECT pg_drop_replication_slot('resume_slot')");
	}

	private static long snapshotRows(String output) {
		long rows = 0;
		Matcher matcher = SNAPSHOT_ROWS.matcher(output);
		while (matcher.find()) {
			rows += Long.parseLong(matcher.group(1));
		}
		return rows;
	}

	private static ChildJvm start(PostgresDatabase database, Path log) {
		return ChildJvm.of(ResumableSnapshotCrashChild.class)
			.args(database.jdbcUrl(), database.username(), "resume_slot", "resume_pub", "resume_source", "resume_sink",
					ROWS_PER_SLEEP, CHUNK_SIZE)
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
