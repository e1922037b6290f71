package io.postlog.consumer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.postlog.Lsn;
import io.postlog.consumer.spill.SpillDirectory;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import io.postlog.test.crash.SlotProbe;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A streaming consumer in a child JVM is killed with SIGKILL while a committed, mostly
 * spilled transaction is half delivered; the dead process leaves its spill files behind.
 * A new child then delivers the whole transaction from its first change with the same
 * ids, and once it is done no spill file or directory is left: the leftovers went when it
 * started, its own with the commit.
 */
@PostgresTest(settings = "logical_decoding_work_mem=64kB")
@Tag("crash")
class StreamingConsumerCrashIntegrationTests {

	private static final int ROWS = 200_000;

	@TempDir
	Path spillRoot;

	@BeforeAll
	static void streamingServer() {
		StreamingServers.assumeStreaming();
	}

	@Test
	void killedWhileASpilledTransactionIsHalfDeliveredLosesNothingAndLeavesNoSpillFile(PostgresDatabase database)
			throws Exception {
		// Without a usable replica identity the consumer refuses a table published for
		// updates.
		database.execute("CREATE TABLE spilled (id int, payload text)", "ALTER TABLE spilled REPLICA IDENTITY FULL",
				"CREATE PUBLICATION spilled_pub FOR TABLE spilled",
				"SELECT pg_create_logical_replication_slot('spilled_slot', 'pgoutput')");
		Path logs = Files.createDirectories(Paths.get("target", "streaming-crash-test"));
		String firstOutput;
		Lsn confirmedAtKill;
		try (ChildJvm first = child(database, logs.resolve("first.log"), 20)) {
			first.awaitOutput("started", Duration.ofSeconds(60));
			database.execute("INSERT INTO spilled SELECT g, md5(g::text) FROM generate_series(1, " + ROWS + ") g");
			await().atMost(Duration.ofMinutes(5)).until(() -> delivered(first.output()) >= ROWS / 2);
			assertThat(spillFiles()).as("spill files of the transaction being delivered").isNotEmpty();
			first.kill();
			firstOutput = first.output();
			confirmedAtKill = Lsn.of(new SlotProbe(database, "spilled_slot").confirmedFlushLsn());
		}
		long deliveredBeforeKill = delivered(firstOutput);
		assertThat(firstOutput).doesNotContain("count=");
		assertThat(deliveredBeforeKill).isBetween((long) ROWS / 2, (long) ROWS - 1);
		assertThat(spillFiles()).as("the killed process's spill files").isNotEmpty();

		String secondOutput;
		int secondExit;
		try (ChildJvm second = child(database, logs.resolve("second.log"), 0)) {
			secondExit = second.awaitExit(Duration.ofMinutes(5));
			secondOutput = second.output();
		}
		Matcher result = Pattern.compile("count=(\\d+) ordered=(\\w+) state=(\\w+) .* first=(\\S+)")
			.matcher(secondOutput);
		assertThat(result.find()).as("second child printed its count:%n%s", secondOutput).isTrue();
		System.out.println("[measure] killed after " + deliveredBeforeKill + " of " + ROWS
				+ " changes, slot confirmed at " + confirmedAtKill + "; after the restart: " + result.group());
		assertThat(secondExit).as("second child exit code:%n%s", secondOutput).isZero();
		assertThat(Long.parseLong(result.group(1))).isEqualTo(ROWS);
		assertThat(result.group(2)).as("every change in order from index 0").isEqualTo("true");
		Matcher firstId = Pattern.compile("first=(\\S+)").matcher(firstOutput);
		assertThat(firstId.find()).isTrue();
		assertThat(result.group(4)).as("the first change's id across the kill").isEqualTo(firstId.group(1));
		// slot/commit LSN/index, the LSN itself holding a slash
		String[] id = firstId.group(1).split("/");
		Lsn commitLsn = Lsn.parse(id[1] + "/" + id[2]);
		assertThat(confirmedAtKill).as("nothing of the half-delivered transaction was acknowledged")
			.isLessThan(commitLsn);
		try (Stream<Path> left = Files.walk(this.spillRoot)) {
			assertThat(left).as("no spill file or directory left").containsExactly(this.spillRoot);
		}
	}

	private ChildJvm child(PostgresDatabase database, Path log, int pauseEvery) {
		return ChildJvm.of(StreamingConsumerChild.class)
			.args(database.jdbcUrl(), database.username(), "spilled_slot", "spilled_pub", "spilled", ROWS,
					this.spillRoot, 1L << 20, 1L << 30, pauseEvery)
			.start(log);
	}

	private static long delivered(String output) {
		Matcher progress = Pattern.compile("delivered=(\\d+)").matcher(output);
		long last = 0;
		while (progress.find()) {
			last = Long.parseLong(progress.group(1));
		}
		return last;
	}

	private List<Path> spillFiles() throws Exception {
		try (Stream<Path> files = Files.walk(this.spillRoot)) {
			return files.filter((file) -> file.toString().endsWith(SpillDirectory.SUFFIX)).toList();
		}
	}

}
