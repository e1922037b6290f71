package io.postlog.consumer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import io.postlog.test.crash.KillLoop;
import io.postlog.test.crash.SourceWriter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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
@Tag("crash")
class BackfillCrashIntegrationTests {

	@RegisterExtension
	static final KillLoop killLoop = new KillLoop();

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
		Random random = killLoop.random("kills");
		SourceWriter writer = BackfillIntegrationTests.writer(database, "bfc_source", ROWS, false,
				killLoop.random("writer"));
		long started = System.nanoTime();
		long[] progressAtKill = new long[KILLS];
		int killedMidBackfill = 0;
		int resumedMidBackfill = 0;
		try {
			for (int kill = 1; kill <= KILLS; kill++) {
				String output;
				try (ChildJvm child = start(database, directory.resolve("child-" + kill + ".log"),
						(kill == 1) ? "start" : "resume")) {
					child.awaitOutput("running", Duration.ofMinutes(2));
					if (kill == 1) {
						child.awaitOutput("backfill-started", Duration.ofMinutes(1));
					}
					// Each child must record progress beyond the last kill's (a resume
					// that
					// started over or stalled fails this wait), then dies at a random
					// point
					// after it: a kill at a fixed time after start fell before the first
					// recorded chunk every time on a loaded machine.
					long recorded = (kill == 1) ? 0 : progressAtKill[kill - 2];
					await().atMost(Duration.ofMinutes(2))
						.pollInterval(Duration.ofMillis(50))
						.until(() -> rowsDone(database) > recorded || child.output().contains("backfill-completed"));
					child.killAfter(KillLoop.between(random, 0, 1000));
					output = child.output();
				}
				progressAtKill[kill - 1] = rowsDone(database);
				if (output.contains("backfill-completed")) {
					// Done before this kill: the runs before it are the proof.
					break;
				}
				killedMidBackfill++;
				resumedMidBackfill += (kill > 1 && output.contains("resumes")) ? 1 : 0;
			}
		}
		finally {
			writer.stop();
		}
		try (ChildJvm last = start(database, directory.resolve("child-final.log"), "resume")) {
			last.awaitOutput("backfill-completed", Duration.ofMinutes(3));
			database.execute("INSERT INTO bfc_source VALUES (" + BackfillCrashChild.SENTINEL + ", 0, 'last')");
			assertThat(last.awaitExit(Duration.ofMinutes(3))).as("last child: %s", last.describe()).isZero();
		}
		System.out.println("[measure] backfill crash test: " + KILLS + " kills of a backfill of " + ROWS
				+ " rows, recorded rows at each kill " + java.util.Arrays.toString(progressAtKill) + ", "
				+ writer.transactions() + " writer commits, "
				+ TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) + " s; server "
				+ database.serverVersion());
		assertThat(killedMidBackfill).as("kills in the middle of the backfill").isGreaterThanOrEqualTo(3);
		assertThat(resumedMidBackfill).as("runs that resumed it and were killed again").isGreaterThanOrEqualTo(2);
		for (int i = 1; i < killedMidBackfill; i++) {
			assertThat(progressAtKill[i]).as("progress never goes back").isGreaterThanOrEqualTo(progressAtKill[i - 1]);
		}
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

	private static ChildJvm start(PostgresDatabase database, Path log, String mode) {
		return ChildJvm.of(BackfillCrashChild.class)
			.args(database.jdbcUrl(), database.username(), "bfc_slot", "bfc_pub", "bfc_source", "bfc_sink",
					ROWS_PER_SLEEP, mode)
			.start(log);
	}

}
