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

import io.postlog.Lsn;
import io.postlog.test.PluginLaneTest;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.crash.ChildJvm;
import io.postlog.test.crash.KillLoop;
import io.postlog.test.crash.SlotProbe;
import io.postlog.test.crash.SourceWriter;
import io.postlog.test.crash.Workloads;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link ConsumerCrashIntegrationTests}' check, once per plugin decoder on the plugin
 * lane (fewer kills, to keep the lane short): a consumer of wal2json or pglogical in a
 * child JVM is killed with SIGKILL at random points while a writer commits transactions
 * of mixed sizes (inserts of new keys, updates of earlier ones) and restarted each time;
 * at the end every key version written was delivered, each change id always named the
 * same key and commit LSN, no child delivered a change twice, and only changes the slot
 * had not confirmed at a kill came again.
 */
@PluginLaneTest
@Tag("crash")
class PluginConsumerCrashIntegrationTests {

	private static final int KILLS = 6;

	@RegisterExtension
	static final KillLoop killLoop = new KillLoop();

	private final PostgresDatabase database;

	PluginConsumerCrashIntegrationTests(PostgresDatabase database) {
		this.database = database;
	}

	@BeforeAll
	static void createNode(PostgresDatabase database) {
		database.execute("CREATE EXTENSION pglogical",
				"SELECT pglogical.create_node(node_name := 'crash', dsn := 'dbname=" + database.name() + "')");
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "wal2json", "pglogical" })
	void sigkilledPluginConsumerLosesNothingAndRedeliversOnlyUnconfirmedChanges(String decoder) throws Exception {
		String table = "crash_" + decoder;
		String slot = "crash_" + decoder + "_slot";
		String plugin = decoder.equals("pglogical") ? "pglogical_output" : "wal2json";
		this.database.execute("CREATE TABLE " + table + " (k bigint PRIMARY KEY, v int NOT NULL)");
		if (decoder.equals("pglogical")) {
			this.database.execute("SELECT pglogical.replication_set_add_table('default', '" + table + "')");
		}
		this.database.execute("SELECT pg_create_logical_replication_slot('" + slot + "', '" + plugin + "')");
		Path directory = Paths.get("target", "plugin-crash-test", decoder);
		Files.createDirectories(directory);
		clean(directory);
		Random random = killLoop.random("kills-" + decoder);
		SlotProbe probe = new SlotProbe(this.database, slot);
		SourceWriter writer = SourceWriter.on(this.database)
			.name("crash-writer")
			.random(killLoop.random("writer-" + decoder))
			.pause(Duration.ofMillis(10))
			.start(Workloads.insertsWithUpdates(table));
		List<Lsn> confirmedAfterKill = new ArrayList<>();
		try {
			for (int generation = 0; generation < KILLS; generation++) {
				try (ChildJvm child = startChild(directory, slot, table, decoder, generation)) {
					if (generation % 2 == 1) {
						// Killed while it delivers: after its first delivered change, at
						// a
						// random point (a fixed time after start fell before any delivery
						// on a loaded machine, and no kill interrupted one).
						child.awaitOutput("started", Duration.ofSeconds(60));
						Path delivered = directory.resolve("delivered-" + generation + ".txt");
						await().atMost(Duration.ofSeconds(60)).until(() -> !completedLines(delivered).isEmpty());
						Thread.sleep(KillLoop.between(random, 0, 1000).toMillis());
					}
					else {
						// Killed at a random point of its start or its first deliveries.
						Thread.sleep(KillLoop.between(random, 200, 3000).toMillis());
					}
					child.kill();
				}
				probe.awaitInactive(Duration.ofSeconds(30));
				confirmedAfterKill.add(Lsn.of(probe.confirmedFlushLsn()));
			}
		}
		finally {
			writer.stop();
		}
		long end = SlotProbe.currentLsn(this.database);
		try (ChildJvm last = startChild(directory, slot, table, decoder, KILLS)) {
			probe.awaitConfirmed(end, Duration.ofSeconds(90));
			last.stop(Duration.ofSeconds(30));
		}
		check(directory, table, confirmedAfterKill, writer);
	}

	private void check(Path directory, String table, List<Lsn> confirmedAfterKill, SourceWriter writer)
			throws Exception {
		Map<String, String> keyVersionOfId = new HashMap<>();
		Map<String, Lsn> commitOfId = new HashMap<>();
		Map<String, List<Integer>> generationsOfId = new HashMap<>();
		Set<String> deliveredVersions = new HashSet<>();
		long deliveries = 0;
		for (int generation = 0; generation <= KILLS; generation++) {
			for (String line : completedLines(directory.resolve("delivered-" + generation + ".txt"))) {
				String[] fields = line.split(" ");
				String id = fields[0];
				String keyVersion = fields[2] + "@" + fields[3];
				assertThat(keyVersionOfId.putIfAbsent(id, keyVersion)).as("row of change %s", id)
					.isIn(null, keyVersion);
				Lsn commitLsn = Lsn.parse(fields[1]);
				assertThat(commitOfId.putIfAbsent(id, commitLsn)).as("commit LSN of change %s", id)
					.isIn(null, commitLsn);
				generationsOfId.computeIfAbsent(id, (ignored) -> new ArrayList<>()).add(generation);
				deliveredVersions.add(keyVersion);
				deliveries++;
			}
		}
		Set<String> written = new TreeSet<>();
		try (Connection connection = this.database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT k, v FROM " + table)) {
			while (rows.next()) {
				for (int version = 1; version <= rows.getInt(2); version++) {
					written.add(rows.getLong(1) + "@" + version);
				}
			}
		}
		assertThat(written).as("rows written").hasSize((int) (writer.inserted() + writer.updated()));
		Set<String> neverDelivered = new TreeSet<>(written);
		neverDelivered.removeAll(deliveredVersions);
		assertThat(neverDelivered).as("key versions written but never delivered").isEmpty();
		assertThat(keyVersionOfId).as("distinct change ids").hasSize(written.size());
		for (Map.Entry<String, List<Integer>> entry : generationsOfId.entrySet()) {
			List<Integer> generations = entry.getValue();
			assertThat(new HashSet<>(generations)).as("no child delivered %s twice", entry.getKey())
				.hasSize(generations.size());
			for (int i = 1; i < generations.size(); i++) {
				Lsn confirmed = confirmedAfterKill.get(generations.get(i) - 1);
				assertThat(commitOfId.get(entry.getKey())).as("redelivered change %s", entry.getKey())
					.isGreaterThanOrEqualTo(confirmed);
			}
		}
		long duplicates = deliveries - keyVersionOfId.size();
		System.out.println("[measure] plugin crash test (" + table + "): " + KILLS + " kills, " + keyVersionOfId.size()
				+ " changes in " + writer.transactions() + " transactions, " + duplicates + " duplicates");
		assertThat(duplicates).as("some kill interrupted delivery").isPositive();
	}

	private ChildJvm startChild(Path directory, String slot, String table, String decoder, int generation) {
		return ChildJvm.of(PluginCrashConsumer.class)
			.args(this.database.jdbcUrl(), this.database.username(), slot, table,
					directory.resolve("delivered-" + generation + ".txt"), decoder)
			.start(directory.resolve("child-" + generation + ".log"));
	}

	/** Lines the handler finished writing; a kill may cut the last one short. */
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
