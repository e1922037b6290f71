package io.postlog.consumer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.postlog.consumer.spill.StreamedTransactions;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A 2,000,000-row transaction streamed by the server passes {@link StreamedTransactions}
 * and {@link PgOutputAssembler} in a JVM with a 128 MB heap and a 16 MB buffer budget:
 * the rest goes to spill files on the client, and the server spills nothing.
 */
@PostgresTest(settings = "logical_decoding_work_mem=64kB")
class StreamedTransactionsMemoryIntegrationTests {

	private static final int ROWS = 2_000_000;

	@TempDir
	Path spillRoot;

	@BeforeAll
	static void streamingServer() {
		StreamingServers.assumeStreaming();
	}

	@Test
	void twoMillionRowTransactionPassesInA128MegabyteHeapAndTheServerSpillsNothing(PostgresDatabase database)
			throws Exception {
		Assumptions.assumeTrue(database.serverVersion() >= 140000, "pgoutput streams since PostgreSQL 14");
		database.execute("CREATE TABLE huge (id int, payload text)", "CREATE PUBLICATION huge_pub FOR TABLE huge",
				"SELECT pg_create_logical_replication_slot('huge_slot', 'pgoutput')");
		// The JVM's own start-up flags: the heap budget was measured with its default
		// collector.
		try (ChildJvm child = ChildJvm.of(StreamedTransactionsChild.class)
			.heap("128m")
			.startupFlags(List.of())
			.args(database.jdbcUrl(), database.username(), "huge_slot", "huge_pub", this.spillRoot, 16L << 20)
			.start(Paths.get("target", "streamed-transactions-memory-test", "child.log"))) {
			child.awaitLine(StreamedTransactionsChild.READY, Duration.ofMinutes(10));
			database.execute("INSERT INTO huge SELECT g, md5(g::text) FROM generate_series(1, " + ROWS + ") g");
			int exitValue = child.awaitExit(Duration.ofMinutes(10));
			String seen = child.output();
			Matcher result = Pattern.compile("count=(\\d+) spilled=(\\d+) peakHeap=(\\d+)").matcher(seen);
			assertThat(result.find()).as("child printed its count:%n%s", seen).isTrue();
			System.out.println("[measure] " + result.group());
			assertThat(exitValue).as("child exit code:%n%s", seen).isZero();
			assertThat(Long.parseLong(result.group(1))).isEqualTo(ROWS);
			assertThat(Long.parseLong(result.group(2))).as("bytes spilled by the client").isPositive();
		}
		try (Stream<Path> left = Files.walk(this.spillRoot)) {
			assertThat(left).containsExactly(this.spillRoot);
		}
		await().until(() -> stats(database)[1] > 0);
		long[] stats = stats(database);
		System.out.println("[fact] huge_slot spill_bytes=" + stats[0] + " stream_bytes=" + stats[1]);
		assertThat(stats[0]).as("spill_bytes").isZero();
	}

	private static long[] stats(PostgresDatabase database) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery(
						"SELECT spill_bytes, stream_bytes FROM pg_stat_replication_slots WHERE slot_name = 'huge_slot'")) {
			return row.next() ? new long[] { row.getLong(1), row.getLong(2) } : new long[] { 0, 0 };
		}
	}

}
