package io.postlog.consumer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.postlog.Lsn;
import io.postlog.consumer.spill.SpillDirectory;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.BeforeAll;
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
		Process first = child(database, logs.resolve("first.log"), 20);
		String firstOutput;
		Lsn confirmedAtKill;
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> read(logs.resolve("first.log")).contains("started"));
			database.execute("INSERT INTO spilled SELECT g, md5(g::text) FROM generate_series(1, " + ROWS + ") g");
			await().atMost(Duration.ofMinutes(5)).until(() -> delivered(read(logs.resolve("first.log"))) >= ROWS / 2);
			assertThat(spillFiles()).as("spill files of the transaction being delivered").isNotEmpty();
			first.destroyForcibly();
			assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
			firstOutput = read(logs.resolve("first.log"));
			confirmedAtKill = ReplicationConsumerIntegrationTests.confirmedFlush(database, "spilled_slot");
		}
		finally {
			first.destroyForcibly();
		}
		long deliveredBeforeKill = delivered(firstOutput);
		assertThat(firstOutput).doesNotContain("count=");
		assertThat(deliveredBeforeKill).isBetween((long) ROWS / 2, (long) ROWS - 1);
		assertThat(spillFiles()).as("the killed process's spill files").isNotEmpty();

		Process second = child(database, logs.resolve("second.log"), 0);
		String secondOutput;
		try {
			assertThat(second.waitFor(5, TimeUnit.MINUTES)).as("second child finished").isTrue();
			secondOutput = read(logs.resolve("second.log"));
		}
		finally {
			second.destroyForcibly();
		}
		Matcher result = Pattern.compile("count=(\\d+) ordered=(\\w+) state=(\\w+) .* first=(\\S+)")
			.matcher(secondOutput);
		assertThat(result.find()).as("second child printed its count:%n%s", secondOutput).isTrue();
		System.out.println("[measure] killed after " + deliveredBeforeKill + " of " + ROWS
				+ " changes, slot confirmed at " + confirmedAtKill + "; after the restart: " + result.group());
		assertThat(second.exitValue()).as("second child exit code:%n%s", secondOutput).isZero();
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

	private Process child(PostgresDatabase database, Path log, int pauseEvery) throws Exception {
		String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
		return new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
				StreamingConsumerChild.class.getName(), database.jdbcUrl(), database.username(), "spilled_slot",
				"spilled_pub", "spilled", Integer.toString(ROWS), this.spillRoot.toString(), Long.toString(1L << 20),
				Long.toString(1L << 30), Integer.toString(pauseEvery))
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
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

	private static String read(Path file) throws Exception {
		return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
	}

}
