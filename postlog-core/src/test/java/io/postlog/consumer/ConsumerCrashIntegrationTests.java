package io.postlog.consumer;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotLifecycle;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Kills a consumer running in a child JVM with SIGKILL at random points while a writer
 * commits transactions of mixed sizes, restarting it each time, and checks the delivery
 * contract on what the children's handlers completed: nothing lost, change ids stable
 * across redelivery, and only transactions the slot had not confirmed at a kill
 * redelivered.
 */
@PostgresTest
class ConsumerCrashIntegrationTests {

	private static final int KILLS = 20;

	private static final String SLOT = "crash_slot";

	private final Path directory = Paths.get("target", "consumer-crash-test");

	@Test
	void sigkilledConsumerLosesNothingAndRedeliversOnlyUnconfirmedTransactions(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE crash (k bigint PRIMARY KEY, tx int NOT NULL)");
		try (Connection connection = database.connect()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			admin.ensurePublication("crash_pub", PublicationMode.CREATE_IF_MISSING, List.of(TableId.parse("crash")));
			admin.ensureSlot(SLOT, SlotLifecycle.CREATE_IF_MISSING);
		}
		clean(this.directory);
		Files.createDirectories(this.directory);
		Random random = new Random(0x5eed);
		Writer writer = new Writer(database);
		Thread writerThread = new Thread(writer, "crash-writer");
		writerThread.start();
		long started = System.nanoTime();
		List<Lsn> confirmedAfterKill = new ArrayList<>();
		try {
			for (int generation = 0; generation < KILLS; generation++) {
				Process child = startChild(database, generation);
				// From inside start-up to well into delivery.
				Thread.sleep(500 + random.nextInt(3500));
				child.destroyForcibly();
				assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
				await().atMost(Duration.ofSeconds(30))
					.until(() -> ReplicationConsumerIntegrationTests.activePid(database, SLOT) == null);
				confirmedAfterKill.add(ReplicationConsumerIntegrationTests.confirmedFlush(database, SLOT));
			}
		}
		finally {
			writer.stop.set(true);
			writerThread.join(TimeUnit.SECONDS.toMillis(30));
		}
		assertThat(writer.failure.get()).isNull();
		Lsn end = ReplicationConsumerIntegrationTests.currentLsn(database);
		Process last = startChild(database, KILLS);
		try {
			await().atMost(Duration.ofSeconds(90))
				.until(() -> ReplicationConsumerIntegrationTests.confirmedFlush(database, SLOT).compareTo(end) >= 0);
		}
		finally {
			last.getOutputStream().close();
			if (!last.waitFor(30, TimeUnit.SECONDS)) {
				last.destroyForcibly();
			}
		}
		long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);

		Map<String, Long> keyOfId = new HashMap<>();
		Map<String, Lsn> commitOfId = new HashMap<>();
		Map<String, List<Integer>> generationsOfId = new HashMap<>();
		Set<Long> delivered = new HashSet<>();
		long deliveries = 0;
		for (int generation = 0; generation <= KILLS; generation++) {
			for (String line : completedLines(output(generation))) {
				String[] fields = line.split(" ");
				String id = fields[0];
				Lsn commitLsn = Lsn.parse(fields[1]);
				long key = Long.parseLong(fields[2]);
				Long previousKey = keyOfId.putIfAbsent(id, key);
				assertThat(previousKey).as("key of change %s", id).isIn(null, key);
				Lsn previousCommit = commitOfId.putIfAbsent(id, commitLsn);
				assertThat(previousCommit).as("commit LSN of change %s", id).isIn(null, commitLsn);
				generationsOfId.computeIfAbsent(id, (ignored) -> new ArrayList<>()).add(generation);
				delivered.add(key);
				deliveries++;
			}
		}
		long duplicates = deliveries - keyOfId.size();
		System.out.println("crash test: " + KILLS + " kills, " + keyOfId.size() + " changes in " + writer.transactions
				+ " transactions, " + duplicates + " duplicates, " + seconds + " s");
		Set<Long> missing = LongStream.rangeClosed(1, writer.written.get())
			.boxed()
			.filter((key) -> !delivered.contains(key))
			.collect(Collectors.toCollection(TreeSet::new));
		assertThat(missing).as("keys written but never delivered").isEmpty();
		assertThat(delivered).as("keys delivered").hasSize((int) writer.written.get());
		assertThat(keyOfId).as("distinct change ids").hasSize((int) writer.written.get());
		for (Map.Entry<String, List<Integer>> entry : generationsOfId.entrySet()) {
			List<Integer> generations = entry.getValue();
			assertThat(new HashSet<>(generations)).as("no child delivered %s twice", entry.getKey())
				.hasSize(generations.size());
			Lsn commitLsn = commitOfId.get(entry.getKey());
			for (int i = 1; i < generations.size(); i++) {
				// Redelivered by this child: the slot had not confirmed it when the
				// previous child was killed.
				Lsn confirmed = confirmedAfterKill.get(generations.get(i) - 1);
				assertThat(commitLsn).as("redelivered change %s", entry.getKey()).isGreaterThanOrEqualTo(confirmed);
			}
		}
		assertThat(duplicates).as("some kill interrupted delivery").isPositive();
	}

	private Process startChild(PostgresDatabase database, int generation) throws IOException {
		String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
		ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
				CrashTestConsumer.class.getName(), database.jdbcUrl(), database.username(), SLOT, "crash_pub", "crash",
				output(generation).toString());
		builder.redirectErrorStream(true);
		builder.redirectOutput(this.directory.resolve("child-" + generation + ".log").toFile());
		return builder.start();
	}

	private Path output(int generation) {
		return this.directory.resolve("delivered-" + generation + ".txt");
	}

	/**
	 * Lines the handler finished writing; a kill may cut the last one short.
	 */
	private static List<String> completedLines(Path file) throws IOException {
		if (!Files.exists(file)) {
			return List.of();
		}
		String text = Files.readString(file, StandardCharsets.UTF_8);
		int end = text.lastIndexOf('\n');
		return (end < 0) ? List.of() : text.substring(0, end).lines().toList();
	}

	private static void clean(Path directory) throws IOException {
		File[] files = directory.toFile().listFiles();
		if (files != null) {
			for (File file : files) {
				Files.delete(file.toPath());
			}
		}
	}

	/**
	 * Commits transactions of 1 to 1,500 rows with consecutive keys until stopped.
	 */
	private static final class Writer implements Runnable {

		private final PostgresDatabase database;

		final AtomicBoolean stop = new AtomicBoolean();

		final AtomicLong written = new AtomicLong();

		final AtomicReference<Throwable> failure = new AtomicReference<>();

		volatile int transactions;

		Writer(PostgresDatabase database) {
			this.database = database;
		}

		@Override
		public void run() {
			Random random = new Random(42);
			try (Connection connection = this.database.connect(); Statement statement = connection.createStatement()) {
				connection.setAutoCommit(false);
				while (!this.stop.get()) {
					int dice = random.nextInt(100);
					int size = (dice < 70) ? 1 + random.nextInt(5)
							: (dice < 95) ? 10 + random.nextInt(90) : 200 + random.nextInt(1300);
					long from = this.written.get() + 1;
					statement.execute("INSERT INTO crash SELECT g, " + this.transactions + " FROM generate_series("
							+ from + ", " + (from + size - 1) + ") g");
					connection.commit();
					this.written.addAndGet(size);
					this.transactions++;
					Thread.sleep(10);
				}
			}
			catch (Throwable ex) {
				this.failure.set(ex);
			}
		}

	}

}
