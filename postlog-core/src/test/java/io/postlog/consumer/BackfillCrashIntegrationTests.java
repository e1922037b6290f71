package io.postlog.consumer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A backfill survives SIGKILL: a child JVM backfilling a table into a sink table while a
 * writer changes the table is killed at random points of the backfill, several times;
 * each next child resumes the recorded backfill (never starting it over: the progress
 * table says where), and after a last, uninterrupted run the sink equals the table.
 */
@PostgresTest
@Tag("snapshot-proof")
class BackfillCrashIntegrationTests {

	private static final int ROWS = Integer.getInteger("postlog.backfill.crash.rows", 30_000);

	private static final int KILLS = Integer.getInteger("postlog.backfill.crash.kills", 5);

	/** Backfilled rows per millisecond of sleep in the child's handler. */
	private static final int ROWS_PER_SLEEP = 3;

	@Test
	void killedAtRandomPointsOfTheBackfillItResumesAndTheSinkEqualsTheTable(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE bfc_source (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"INSERT INTO bfc_source SELECT g, g % 1000, md5(g::text) FROM generate_series(1, " + ROWS + ") g",
				"ANALYZE bfc_source", "CREATE TABLE bfc_sink (id bigint PRIMARY KEY, a int, b text)");
		Path directory = Files.createDirectories(Paths.get("target", "backfill-crash-test"));
		Random random = new Random();
		BackfillIntegrationTests.Writer writer = new BackfillIntegrationTests.Writer(database, "bfc_source", ROWS);
		writer.start();
		long started = System.nanoTime();
		long[] progressAtKill = new long[KILLS];
		int killedMidBackfill = 0;
		int resumedMidBackfill = 0;
		try {
			for (int kill = 1; kill <= KILLS; kill++) {
				Path log = directory.resolve("child-" + kill + ".log");
				Process child = start(database, log, (kill == 1) ? "start" : "resume");
				await().atMost(Duration.ofMinutes(2)).until(() -> read(log).contains("running"));
				if (kill == 1) {
					await().atMost(Duration.ofMinutes(1)).until(() -> read(log).contains("backfill-started"));
				}
				child.waitFor(1500 + random.nextInt(2500), TimeUnit.MILLISECONDS);
				assertThat(child.isAlive()).as("child %d ran until killed:%n%s", kill, read(log)).isTrue();
				child.destroyForcibly();
				assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
				progressAtKill[kill - 1] = rowsDone(database);
				if (read(log).contains("backfill-completed")) {
					// Done before this kill: the runs before it are the proof.
					break;
				}
				killedMidBackfill++;
				resumedMidBackfill += (kill > 1 && read(log).contains("resumes")) ? 1 : 0;
			}
		}
		finally {
			writer.stop();
		}
		Path log = directory.resolve("child-final.log");
		Process last = start(database, log, "resume");
		try {
			await().atMost(Duration.ofMinutes(3)).until(() -> read(log).contains("backfill-completed"));
			database.execute("INSERT INTO bfc_source VALUES (" + BackfillCrashChild.SENTINEL + ", 0, 'last')");
			assertThat(last.waitFor(3, TimeUnit.MINUTES)).as("last child finished").isTrue();
			assertThat(last.exitValue()).as("last child:%n%s", read(log)).isZero();
		}
		finally {
			last.destroyForcibly();
		}
		System.out.println("[measure] backfill crash test: " + KILLS + " kills of a backfill of " + ROWS
				+ " rows, recorded rows at each kill " + java.util.Arrays.toString(progressAtKill) + ", "
				+ writer.commits + " writer commits, " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)
				+ " s; server " + database.serverVersion());
		assertThat(killedMidBackfill).as("kills in the middle of the backfill").isGreaterThanOrEqualTo(3);
		assertThat(resumedMidBackfill).as("runs that resumed it and were killed again").isGreaterThanOrEqualTo(2);
		for (int i = 1; i < killedMidBackfill; i++) {
			assertThat(progressAtKill[i]).as("progress never goes back").isGreaterThanOrEqualTo(progressAtKill[i - 1]);
		}
		assertThat(progressAtKill[killedMidBackfill - 1]).as("progress recorded across the kills").isPositive();
		assertThat(BackfillIntegrationTests.differences(BackfillIntegrationTests.table(database, "bfc_sink"),
				BackfillIntegrationTests.table(database, "bfc_source")))
			.as("sink against the table")
			.isEmpty();
		database.execute("SELECT pg_drop_replication_slot('bfc_slot')");
	}

	private static long rowsDone(PostgresDatabase database) throws Exception {
		try (var connection = database.connect();
				var statement = connection.createStatement();
				var row = statement.executeQuery(
						"SELECT coalesce(sum(rows_done), 0) FROM postlog_backfill WHERE slot_name = 'bfc_slot'")) {
			row.next();
			return row.getLong(1);
		}
	}

	private static Process start(PostgresDatabase database, Path log, String mode) throws Exception {
		String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
		ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
				BackfillCrashChild.class.getName(), database.jdbcUrl(), database.username(), "bfc_slot", "bfc_pub",
				"bfc_source", "bfc_sink", Integer.toString(ROWS_PER_SLEEP), mode);
		builder.redirectErrorStream(true);
		builder.redirectOutput(log.toFile());
		return builder.start();
	}

	private static String read(Path file) throws Exception {
		return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
	}

}
