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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.postlog.Transaction;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A 2,000,000-row transaction reaches the change handler of a streaming
 * {@link ReplicationConsumer} in a child JVM with a 128 MB heap and the default 16 MB
 * buffer budget; all the while {@code pg_stat_replication_slots.spill_bytes} of its slot
 * stays 0 and {@code stream_bytes} grows. The same transaction read from a second slot by
 * a consumer without streaming makes the server spill.
 */
@PostgresTest(settings = "logical_decoding_work_mem=64kB")
class StreamingConsumerMemoryIntegrationTests {

	private static final int ROWS = 2_000_000;

	@TempDir
	Path spillRoot;

	@BeforeAll
	static void streamingServer() {
		StreamingServers.assumeStreaming();
	}

	@Test
	void twoMillionRowTransactionReachesAChangeHandlerInA128MegabyteHeapAndTheServerSpillsNothing(
			PostgresDatabase database) throws Exception {
		// Without a usable replica identity the consumer refuses a table published for
		// updates.
		database.execute("CREATE TABLE huge (id int, payload text)", "ALTER TABLE huge REPLICA IDENTITY FULL",
				"CREATE PUBLICATION huge_pub FOR TABLE huge",
				"SELECT pg_create_logical_replication_slot('huge_streamed', 'pgoutput')",
				"SELECT pg_create_logical_replication_slot('huge_plain', 'pgoutput')");
		Path log = Files.createDirectories(Paths.get("target", "streaming-memory-test")).resolve("child.log");
		List<long[]> samples = new ArrayList<>();
		// The JVM's own start-up flags: the heap budget was measured with its default
		// collector.
		try (ChildJvm child = ChildJvm.of(StreamingConsumerChild.class)
			.heap("128m")
			.startupFlags(List.of())
			.args(database.jdbcUrl(), database.username(), "huge_streamed", "huge_pub", "huge", ROWS, this.spillRoot,
					16L << 20, 10L << 30, 0)
			.start(log)) {
			child.awaitOutput(StreamingConsumerChild.STARTED, Duration.ofSeconds(60));
			long started = System.nanoTime();
			database.execute("INSERT INTO huge SELECT g, md5(g::text) FROM generate_series(1, " + ROWS + ") g");
			long committed = System.nanoTime();
			while (child.isAlive() && System.nanoTime() - committed < TimeUnit.MINUTES.toNanos(10)) {
				samples.add(stats(database, "huge_streamed"));
				child.waitFor(Duration.ofMillis(500));
			}
			long finished = System.nanoTime();
			int exitValue = child.awaitExit(Duration.ofSeconds(1));
			String output = child.output();
			Matcher result = Pattern
				.compile("count=(\\d+) ordered=(\\w+) state=(\\w+) .*spilled=(\\d+) peakHeap=(\\d+)")
				.matcher(output);
			assertThat(result.find()).as("child printed its count:%n%s", output).isTrue();
			System.out.println("[measure] 2,000,000-row transaction, streaming, -Xmx128m: insert "
					+ TimeUnit.NANOSECONDS.toMillis(committed - started) + " ms, commit to child exit "
					+ TimeUnit.NANOSECONDS.toMillis(finished - committed) + " ms; child: " + result.group());
			assertThat(exitValue).as("child exit code:%n%s", output).isZero();
			assertThat(Long.parseLong(result.group(1))).isEqualTo(ROWS);
			assertThat(result.group(2)).isEqualTo("true");
			assertThat(Long.parseLong(result.group(4))).as("bytes the consumer spilled").isPositive();
		}
		try (Stream<Path> left = Files.walk(this.spillRoot)) {
			assertThat(left).containsExactly(this.spillRoot);
		}
		await().until(() -> stats(database, "huge_streamed")[1] > 0);
		samples.add(stats(database, "huge_streamed"));
		assertThat(samples).as("spill_bytes of the streaming slot at every sample")
			.allSatisfy((sample) -> assertThat(sample[0]).isZero());
		assertThat(samples.get(samples.size() - 1)[1]).as("stream_bytes").isPositive();

		long plain = readWithoutStreaming(database);
		await().until(() -> stats(database, "huge_plain")[0] > 0);
		long[] streamed = stats(database, "huge_streamed");
		long[] unstreamed = stats(database, "huge_plain");
		System.out.println("[fact] 2,000,000-row transaction, pg_stat_replication_slots (spill_bytes, stream_bytes): "
				+ "streaming " + List.of(streamed[0], streamed[1]) + " (" + samples.size() + " samples, spill_bytes 0 "
				+ "in each), without streaming " + List.of(unstreamed[0], unstreamed[1]));
		assertThat(plain).isEqualTo(ROWS);
		assertThat(unstreamed[0]).as("spill_bytes without streaming").isPositive();
	}

	private static long readWithoutStreaming(PostgresDatabase database) throws InterruptedException {
		AtomicLong count = new AtomicLong();
		java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName("huge_plain")
			.slotLifecycle(SlotLifecycle.EXISTING)
			.publicationName("huge_pub")
			.publicationMode(PublicationMode.EXISTING)
			.changeHandler((change) -> count.incrementAndGet())
			.listener(new ConsumerListener() {

				@Override
				public void transactionDelivered(Transaction transaction, Duration handlerTime) {
					if (count.get() > 0) {
						done.countDown();
					}
				}

			})
			.build();
		consumer.start();
		try {
			assertThat(done.await(10, TimeUnit.MINUTES)).as("the consumer without streaming finished").isTrue();
			return count.get();
		}
		finally {
			consumer.stop();
		}
	}

	private static long[] stats(PostgresDatabase database, String slot) throws SQLException {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT spill_bytes, stream_bytes FROM pg_stat_replication_slots"
						+ " WHERE slot_name = '" + slot + "'")) {
			return row.next() ? new long[] { row.getLong(1), row.getLong(2) } : new long[] { 0, 0 };
		}
	}

}
