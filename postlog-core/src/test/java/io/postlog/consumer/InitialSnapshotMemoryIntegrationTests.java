package io.postlog.consumer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bounded memory: the initial snapshot of a table of 5,000,000 narrow rows passes a
 * change handler of a {@link ReplicationConsumer} in a child JVM whose heap is 128 MB.
 */
@PostgresTest
@Tag("snapshot-proof")
class InitialSnapshotMemoryIntegrationTests {

	private static final long ROWS = Long.getLong("postlog.snapshot.memory.rows", 5_000_000);

	@Test
	void narrowTablePassesAChangeHandlerInA128MegabyteHeap(PostgresDatabase database) throws Exception {
		long insertStart = System.nanoTime();
		database.execute("CREATE TABLE narrow (id bigint PRIMARY KEY, n int NOT NULL)",
				"INSERT INTO narrow SELECT g, (g % 7)::int FROM generate_series(1, " + ROWS + ") g", "ANALYZE narrow");
		long inserted = System.nanoTime();
		Path directory = Files.createDirectories(Paths.get("target", "initial-snapshot-memory-test"));
		// The JVM's own start-up flags: the heap budget was measured with its default
		// collector.
		try (ChildJvm child = ChildJvm.of(InitialSnapshotMemoryChild.class)
			.heap("128m")
			.startupFlags(List.of())
			.args(database.jdbcUrl(), database.username(), "narrow", 2)
			.start(directory.resolve("child.log"))) {
			int exitValue = child.awaitExit(Duration.ofMinutes(10));
			String output = child.output();
			Matcher result = Pattern.compile("count=(\\d+) sum=(\\d+) .*").matcher(output);
			assertThat(result.find()).as("child printed its count:%n%s", output).isTrue();
			System.out.println("[measure] " + ROWS + "-row initial snapshot through a consumer: table loaded in "
					+ TimeUnit.NANOSECONDS.toMillis(inserted - insertStart) + " ms; child: " + result.group());
			assertThat(output).doesNotContain("OutOfMemoryError");
			assertThat(result.group(1)).isEqualTo(Long.toString(ROWS));
			// The sum of g % 7 over 1..ROWS: every value was decoded.
			assertThat(Long.parseLong(result.group(2))).isEqualTo(expectedSum());
			assertThat(exitValue).as("child exit code:%n%s", output).isZero();
		}
	}

	private static long expectedSum() {
		long full = ROWS / 7;
		long sum = full * (0 + 1 + 2 + 3 + 4 + 5 + 6);
		for (long g = full * 7 + 1; g <= ROWS; g++) {
			sum += g % 7;
		}
		return sum;
	}

}
