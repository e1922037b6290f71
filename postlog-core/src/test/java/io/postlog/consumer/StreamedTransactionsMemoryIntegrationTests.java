package io.postlog.consumer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.postlog.consumer.spill.StreamedTransactions;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
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
		String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
		Process child = new ProcessBuilder(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"),
				StreamedTransactionsChild.class.getName(), database.jdbcUrl(), database.username(), "huge_slot",
				"huge_pub", this.spillRoot.toString(), Long.toString(16L << 20))
			.redirectErrorStream(true)
			.start();
		try {
			BufferedReader output = new BufferedReader(
					new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
			StringBuilder seen = new StringBuilder();
			String line;
			while ((line = output.readLine()) != null && !line.equals(StreamedTransactionsChild.READY)) {
				seen.append(line).append('\n');
			}
			assertThat(line).as("the child started:%n%s", seen).isNotNull();
			database.execute("INSERT INTO huge SELECT g, md5(g::text) FROM generate_series(1, " + ROWS + ") g");
			while ((line = output.readLine()) != null) {
				seen.append(line).append('\n');
			}
			assertThat(child.waitFor(10, TimeUnit.MINUTES)).as("child finished").isTrue();
			Matcher result = Pattern.compile("count=(\\d+) spilled=(\\d+) peakHeap=(\\d+)").matcher(seen);
			assertThat(result.find()).as("child printed its count:%n%s", seen).isTrue();
			System.out.println("[measure] " + result.group());
			assertThat(child.exitValue()).as("child exit code:%n%s", seen).isZero();
			assertThat(Long.parseLong(result.group(1))).isEqualTo(ROWS);
			assertThat(Long.parseLong(result.group(2))).as("bytes spilled by the client").isPositive();
		}
		finally {
			child.destroyForcibly();
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
