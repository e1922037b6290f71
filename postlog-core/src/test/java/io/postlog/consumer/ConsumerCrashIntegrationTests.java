package io.postlog.consumer;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Kills a consumer running in a child JVM with SIGKILL at random points while a writer
 * commits transactions of mixed sizes (inserts of new keys and updates of earlier ones),
 * restarting it each time, and checks the delivery contract on what the children's
 * handlers completed: nothing lost, change ids stable across redelivery, each key's
 * changes in order within a child, and only transactions the slot had not confirmed at a
 * kill redelivered. It runs with one serial handler, with a handler that acknowledges
 * later on another thread at random delays, and with a handler on 8 lanes.
 */
@PostgresTest
class ConsumerCrashIntegrationTests {

	private static final String SLOT = "crash_slot";

	private final Path directory = Paths.get("target", "consumer-crash-test");

	private String slot = SLOT;

	@ParameterizedTest(name = "{0}, {1} kills")
	@CsvSource({ "serial, 20", "deferred, 12", "lanes, 12" })
	void sigkilledConsumerLosesNothingAndRedeliversOnlyUnconfirmedTransactions(String mode, int kills,
			PostgresDatabase database) throws Exception {
		String table = "crash_" + mode;
		this.slot = SLOT + "_" + mode;
		database.execute("CREATE TABLE " + table + " (k bigint PRIMARY KEY, v int NOT NULL)");
		try (Connection connection = database.connect()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			admin.ensurePublication(table + "_pub", PublicationMode.CREATE_IF_MISSING, List.of(TableId.parse(table)));
			admin.ensureSlot(this.slot, SlotLifecycle.CREATE_IF_MISSING);
		}
		Path directory = this.directory.resolve(mode);
		Files.createDirectories(directory);
		clean(directory);
		Random random = new Random(0x5eed);
		Writer writer = new Writer(database, table);
		Thread writerThread = new Thread(writer, "crash-writer");
		writerThread.start();
		long started = System.nanoTime();
		List<Lsn> confirmedAfterKill = new ArrayList<>();
		try {
			for (int generation = 0; generation < kills; generation++) {
				Process child = startChild(database, directory, mode, generation);
				// Every other kill lands inside start-up; the others once the child
				// streams, at random points of delivery, however slowly the JVM starts.
				if (generation % 2 == 1) {
					Path log = directory.resolve("child-" + generation + ".log");
					await().atMost(Duration.ofSeconds(60))
						.until(() -> Files.exists(log)
								&& Files.readString(log, StandardCharsets.UTF_8).contains("started"));
				}
				Thread.sleep(200 + random.nextInt(3000));
				child.destroyForcibly();
				assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
				await().atMost(Duration.ofSeconds(30))
					.until(() -> ReplicationConsumerIntegrationTests.activePid(database, this.slot) == null);
				confirmedAfterKill.add(ReplicationConsumerIntegrationTests.confirmedFlush(database, this.slot));
			}
		}
		finally {
			writer.stop.set(true);
			writerThread.join(TimeUnit.SECONDS.toMillis(30));
		}
		assertThat(writer.failure.get()).isNull();
		Lsn end = ReplicationConsumerIntegrationTests.currentLsn(database);
		Process last = startChild(database, directory, mode, kills);
		try {
			await().atMost(Duration.ofSeconds(90))
				.until(() -> ReplicationConsumerIntegrationTests.confirmedFlush(database, this.slot)
					.compareTo(end) >= 0);
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
		Set<String> deliveredVersions = new HashSet<>();
		long deliveries = 0;
		for (int generation = 0; generation <= kills; generation++) {
			Map<Long, Integer> lastVersion = new HashMap<>();
			for (String line : completedLines(output(directory, generation))) {
				String[] fields = line.split(" ");
				String id = fields[0];
				Lsn commitLsn = Lsn.parse(fields[1]);
				long key = Long.parseLong(fields[2]);
				int version = Integer.parseInt(fields[3]);
				Integer previousVersion = lastVersion.put(key, version);
				assertThat(version).as("version of key %s after %s in child %s", key, previousVersion, generation)
					.isGreaterThanOrEqualTo((previousVersion != null) ? previousVersion : 0);
				Long previousKey = keyOfId.putIfAbsent(id, key);
				assertThat(previousKey).as("key of change %s", id).isIn(null, key);
				Lsn previousCommit = commitOfId.putIfAbsent(id, commitLsn);
				assertThat(previousCommit).as("commit LSN of change %s", id).isIn(null, commitLsn);
				generationsOfId.computeIfAbsent(id, (ignored) -> new ArrayList<>()).add(generation);
				delivered.add(key);
				deliveredVersions.add(key + "@" + version);
				deliveries++;
			}
		}
		long duplicates = deliveries - keyOfId.size();
		System.out
			.println("[measure] crash test (" + mode + "): " + kills + " kills, " + keyOfId.size() + " changes in "
					+ writer.transactions + " transactions, " + duplicates + " duplicates, " + seconds + " s");
		Set<Long> missing = LongStream.rangeClosed(1, writer.written.get())
			.boxed()
			.filter((key) -> !delivered.contains(key))
			.collect(Collectors.toCollection(TreeSet::new));
		assertThat(missing).as("keys written but never delivered").isEmpty();
		assertThat(delivered).as("keys delivered").hasSize((int) writer.written.get());
		// Every key was inserted at version 1 and updated to its final version one step
		// at
		// a time: each of those versions is one change that must have been delivered.
		Set<String> written = new TreeSet<>();
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT k, v FROM " + table)) {
			while (rows.next()) {
				for (int version = 1; version <= rows.getInt(2); version++) {
					written.add(rows.getLong(1) + "@" + version);
				}
			}
		}
		Set<String> neverDelivered = new TreeSet<>(written);
		neverDelivered.removeAll(deliveredVersions);
		assertThat(neverDelivered).as("key versions written but never delivered").isEmpty();
		assertThat(keyOfId).as("distinct change ids").hasSize(written.size());
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

	private Process startChild(PostgresDatabase database, Path directory, String mode, int generation)
			throws IOException {
		String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
		String table = "crash_" + mode;
		ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
				CrashTestConsumer.class.getName(), database.jdbcUrl(), database.username(), this.slot, table + "_pub",
				table, output(directory, generation).toString(), mode);
		builder.redirectErrorStream(true);
		builder.redirectOutput(directory.resolve("child-" + generation + ".log").toFile());
		return builder.start();
	}

	private static Path output(Path directory, int generation) {
		return directory.resolve("delivered-" + generation + ".txt");
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
	 * Commits transactions of 1 to 1,500 new rows with consecutive keys, half of them
	 * also updating an earlier row's version, until stopped.
	 */
	private static final class Writer implements Runnable {

		private final PostgresDatabase database;

		private final String table;

		final AtomicBoolean stop = new AtomicBoolean();

		final AtomicLong written = new AtomicLong();

		final AtomicLong updates = new AtomicLong();

		final AtomicReference<Throwable> failure = new AtomicReference<>();

		volatile int transactions;

		Writer(PostgresDatabase database, String table) {
			this.database = database;
			this.table = table;
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
					statement.execute("INSERT INTO " + this.table + " SELECT g, 1 FROM generate_series(" + from + ", "
							+ (from + size - 1) + ") g");
					int updated = 0;
					if (from > 1 && random.nextBoolean()) {
						// Few keys, so that each gets many versions to keep in order.
						long key = 1 + random.nextInt((int) Math.min(50, from - 1));
						updated = statement.executeUpdate("UPDATE " + this.table + " SET v = v + 1 WHERE k = " + key);
					}
					connection.commit();
					this.written.addAndGet(size);
					this.updates.addAndGet(updated);
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
