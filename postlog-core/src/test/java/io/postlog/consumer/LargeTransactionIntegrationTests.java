package io.postlog.consumer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.postlog.Lsn;
import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotLifecycle;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Delivery contract 8: a change handler passes a transaction of any size in bounded
 * memory; a transaction handler is given at most {@code maxTransactionChanges}.
 */
@PostgresTest
class LargeTransactionIntegrationTests {

	private static final int ROWS = 1_000_000;

	@Test
	void millionRowTransactionPassesAChangeHandlerInA128MegabyteHeap(PostgresDatabase database) throws Exception {
		// Without a usable replica identity the consumer refuses a table published for
		// updates.
		database.execute("CREATE TABLE big (id int, payload text)", "ALTER TABLE big REPLICA IDENTITY FULL");
		try (var connection = database.connect()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			admin.ensurePublication("big_pub", PublicationMode.CREATE_IF_MISSING, List.of(TableId.parse("big")));
			admin.ensureSlot("big_slot", SlotLifecycle.CREATE_IF_MISSING);
		}
		Path directory = Files.createDirectories(Paths.get("target", "large-transaction-test"));
		// The JVM's own start-up flags: the heap budget was measured with its default
		// collector.
		try (ChildJvm child = ChildJvm.of(LargeTransactionConsumer.class)
			.heap("128m")
			.startupFlags(List.of())
			.args(database.jdbcUrl(), database.username(), "big_slot", "big_pub", "big", ROWS)
			.start(directory.resolve("child.log"))) {
			child.awaitOutput("started", Duration.ofSeconds(60));
			long started = System.nanoTime();
			database.execute("INSERT INTO big SELECT g, md5(g::text) FROM generate_series(1, " + ROWS + ") g");
			long inserted = System.nanoTime();
			int exitValue = child.awaitExit(Duration.ofMinutes(4));
			long finished = System.nanoTime();
			String output = child.output();
			Matcher result = Pattern.compile("count=(\\d+) state=(\\w+) .*").matcher(output);
			assertThat(result.find()).as("child printed its count:%n%s", output).isTrue();
			System.out.println("[measure] 1,000,000-row transaction: insert "
					+ TimeUnit.NANOSECONDS.toMillis(inserted - started) + " ms, insert to child exit "
					+ TimeUnit.NANOSECONDS.toMillis(finished - started) + " ms; child: " + result.group());
			assertThat(result.group(1)).isEqualTo(Integer.toString(ROWS));
			assertThat(result.group(2)).isNotEqualTo("FAILED");
			assertThat(exitValue).as("child exit code:%n%s", output).isZero();
		}
	}

	@Test
	void largeRowsBehindASlowHandlerAreReadAheadWithinTheByteBound(PostgresDatabase database) throws Exception {
		// 24 rows of 20 MB each: read ahead by event count alone, they would need about
		// 1 GB of heap; the byte bound keeps a few in memory.
		database.execute("CREATE TABLE wide (id int PRIMARY KEY, payload text)");
		try (var connection = database.connect()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			admin.ensurePublication("wide_pub", PublicationMode.CREATE_IF_MISSING, List.of(TableId.parse("wide")));
			admin.ensureSlot("wide_slot", SlotLifecycle.CREATE_IF_MISSING);
		}
		Path directory = Files.createDirectories(Paths.get("target", "large-transaction-test"));
		try (ChildJvm child = ChildJvm.of(LargeTransactionConsumer.class)
			.heap("256m")
			.startupFlags(List.of())
			.args(database.jdbcUrl(), database.username(), "wide_slot", "wide_pub", "wide", 24, 200)
			.start(directory.resolve("wide-child.log"))) {
			child.awaitOutput("started", Duration.ofSeconds(60));
			database.execute(
					"INSERT INTO wide SELECT g, repeat(md5(g::text), 20 * 1024 * 1024 / 32) FROM generate_series(1, 24) g");
			int exitValue = child.awaitExit(Duration.ofMinutes(4));
			String output = child.output();
			Matcher result = Pattern.compile("count=(\\d+) state=(\\w+) .*").matcher(output);
			assertThat(result.find()).as("child printed its count:%n%s", output).isTrue();
			System.out
				.println("[measure] 24 rows of 20 MB behind a 200 ms handler in a 256 MB heap: " + result.group());
			assertThat(result.group(1)).isEqualTo("24");
			assertThat(exitValue).as("child exit code:%n%s", output).isZero();
		}
	}

	@Test
	void transactionLargerThanTheLimitFailsATransactionHandlerAndIsNotAcknowledged(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE capped (id int PRIMARY KEY, secret text)");
		AtomicInteger handled = new AtomicInteger();
		AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName("capped_slot")
			.publicationName("capped_pub")
			.tables(List.of(TableId.parse("capped")))
			.statusInterval(Duration.ofSeconds(1))
			.maxTransactionChanges(1000)
			.transactionHandler((transaction) -> handled.addAndGet(transaction.changes().size()))
			.listener(new ConsumerListener() {

				@Override
				public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
					if (current == ConsumerState.FAILED) {
						failure.set(cause);
					}
				}

			})
			.build();
		consumer.start();
		try {
			database.execute("INSERT INTO capped SELECT g, 'small-' || g FROM generate_series(1, 1000) g");
			await().until(() -> handled.get() == 1000);
			await().until(() -> ReplicationConsumerIntegrationTests.confirmedFlush(database, "capped_slot")
				.compareTo(ReplicationConsumerIntegrationTests.currentLsn(database)) >= 0);
			Lsn before = ReplicationConsumerIntegrationTests.currentLsn(database);
			database.execute("INSERT INTO capped SELECT g, 'oversized-row-' || g FROM generate_series(1001, 6000) g");
			Lsn after = ReplicationConsumerIntegrationTests.currentLsn(database);
			await().atMost(Duration.ofSeconds(30)).until(() -> consumer.state() == ConsumerState.FAILED);
			Throwable cause = failure.get();
			assertThat(cause).isInstanceOf(ReplicationConsumerException.class)
				.hasMessageContaining("more than 1000 changes")
				.hasMessageContaining("maxTransactionChanges");
			Matcher commit = Pattern.compile("commit LSN ([0-9A-F]+/[0-9A-F]+)").matcher(cause.getMessage());
			assertThat(commit.find()).as(cause.getMessage()).isTrue();
			Lsn commitLsn = Lsn.parse(commit.group(1));
			assertThat(commitLsn).isGreaterThanOrEqualTo(before).isLessThan(after);
			assertThat(cause.getMessage()).doesNotContain("oversized-row");
			assertThat(handled).hasValue(1000);
			assertThat(ReplicationConsumerIntegrationTests.confirmedFlush(database, "capped_slot"))
				.isLessThanOrEqualTo(commitLsn);
			assertThat(consumer.ackedLsn()).isLessThanOrEqualTo(commitLsn);
		}
		finally {
			consumer.stop();
		}
	}

}
