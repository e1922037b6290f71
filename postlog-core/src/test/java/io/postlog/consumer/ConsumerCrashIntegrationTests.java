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
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotLifecycle;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import io.postlog.test.crash.KillLoop;
import io.postlog.test.crash.SlotProbe;
import io.postlog.test.crash.SourceWriter;
import io.postlog.test.crash.Workloads;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

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
@Tag("crash")
class ConsumerCrashIntegrationTests {

	private static final String SLOT = "crash_slot";

	@RegisterExtension
	static final KillLoop killLoop = new KillLoop();

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
		Random random = killLoop.random("kills-" + mode);
		SlotProbe probe = new SlotProbe(database, this.slot);
		SourceWriter writer = SourceWriter.on(database)
			.name("crash-writer")
			.random(killLoop.random("writer-" + mode))
			.pause(Duration.ofMillis(10))
			.start(Workloads.insertsWithUpdates(table));
		long started = System.nanoTime();
		List<Lsn> confirmedAfterKill = new ArrayList<>();
		try {
			for (int generation = 0; generation < kills; generation++) {
				try (ChildJvm child = startChild(database, directory, mode, generation)) {
					// Every other kill lands inside start-up; the others once the child
					// streams, at random points of delivery, however slowly the JVM
					// starts.
					if (generation % 2 == 1) {
						child.awaitOutput("started", Duration.ofSeconds(60));
					}
					Thread.sleep(KillLoop.between(random, 200, 3000).toMillis());
					child.kill();
				}
				probe.awaitInactive(Duration.ofSeconds(30));
				confirmedAfterKill.add(Lsn.of(probe.confirmedFlushLsn()));
			}
		}
		finally {
			writer.stop();
		}
		long end = SlotProbe.currentLsn(database);
		try (ChildJvm last = startChild(database, directory, mode, kills)) {
			probe.awaitConfirmed(end, Duration.ofSeconds(90));
			last.stop(Duration.ofSeconds(30));
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
					+ writer.transactions() + " transactions, " + duplicates + " duplicates, " + seconds + " s");
		Set<Long> missing = LongStream.rangeClosed(1, writer.lastKey())
			.boxed()
			.filter((key) -> !delivered.contains(key))
			.collect(Collectors.toCollection(TreeSet::new));
		assertThat(missing).as("keys written but never delivered").isEmpty();
		assertThat(delivered).as("keys delivered").hasSize((int) writer.lastKey());
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

	private ChildJvm startChild(PostgresDatabase database, Path directory, String mode, int generation) {
		String table = "crash_" + mode;
		return ChildJvm.of(CrashTestConsumer.class)
			.systemProperty(KillLoop.SEED_PROPERTY, Long.toString(killLoop.seed() + generation))
			.args(database.jdbcUrl(), database.username(), this.slot, table + "_pub", table,
					output(directory, generation), mode)
			.start(directory.resolve("child-" + generation + ".log"));
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

}
