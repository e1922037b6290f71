package io.postlog.spring;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import io.postlog.test.crash.KillLoop;
import io.postlog.test.crash.SlotProbe;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code postlog.checkpoint.store=jdbc} with {@code postlog.snapshot.mode=initial}: a
 * Boot application in a child JVM, whose {@code @Transactional} listener inserts every
 * row with a plain {@code INSERT} into a sink table with a primary key (a row delivered
 * twice fails it), is killed with SIGKILL five times while the initial snapshot, or the
 * backfill that resumes it, delivers. Each kill comes after the child committed rows of
 * its own, at a random point after that. A last run finishes; the sink then equals the
 * table, and no insert ever failed.
 */
@PostgresTest
@Tag("crash")
class SnapshotCheckpointCrashIntegrationTests {

	@RegisterExtension
	static final KillLoop killLoop = new KillLoop();

	private static final int ROWS = 20_000;

	private static final int KILLS = 5;

	private static final String SOURCE = "snapcp_source";

	private static final String SINK = "snapcp_sink";

	private static final String SLOT = "snapcp";

	private final Path directory = Paths.get("target", "snapshot-checkpoint-crash-test");

	@Test
	void everyRowReachesTheSinkExactlyOnceAcrossKillsOfTheSnapshot(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE " + SOURCE + " (k bigint PRIMARY KEY, tx int NOT NULL)",
				"INSERT INTO " + SOURCE + " SELECT g, g % 1000 FROM generate_series(1, " + ROWS + ") g",
				"ANALYZE " + SOURCE, "CREATE TABLE " + SINK + " (k bigint PRIMARY KEY, tx int NOT NULL)",
				"CREATE PUBLICATION " + SLOT + " FOR TABLE " + SOURCE);
		clean(this.directory);
		Files.createDirectories(this.directory);
		Random random = killLoop.random("kills");
		SlotProbe probe = new SlotProbe(database, SLOT);
		List<ChildJvm> children = new ArrayList<>();
		List<Long> atKills = new ArrayList<>();
		long before = 0;
		for (int generation = 0; generation < KILLS; generation++) {
			try (ChildJvm child = startChild(database, generation)) {
				children.add(child);
				child.awaitOutput("\nstarted\n", Duration.ofSeconds(120));
				long previous = before;
				// Killed once it committed rows of its own, a random moment later.
				await().atMost(Duration.ofMinutes(2))
					.pollInterval(Duration.ofMillis(50))
					.until(() -> sinkRows(database) > previous);
				Thread.sleep(KillLoop.between(random, 0, 1500).toMillis());
				child.kill();
			}
			probe.awaitInactive(Duration.ofSeconds(30));
			before = sinkRows(database);
			atKills.add(before);
		}
		System.out.println("[snapshot-checkpoint-crash] sink rows at each kill: " + atKills + " of " + ROWS + "; "
				+ killLoop.replay());
		assertThat(atKills).as("sink rows at each kill").allMatch((rows) -> rows > 0);
		assertThat(atKills.get(KILLS - 2)).as("sink rows at the last kill but one").isLessThan((long) ROWS);
		try (ChildJvm last = startChild(database, KILLS)) {
			children.add(last);
			await().atMost(Duration.ofMinutes(3))
				.pollInterval(Duration.ofMillis(500))
				.until(() -> sinkRows(database) >= ROWS);
			last.stop(Duration.ofSeconds(60));
		}
		for (ChildJvm child : children) {
			String log = Files.readString(child.log());
			assertThat(log).as("log of " + child.log()).doesNotContain("23505").doesNotContain("DuplicateKey");
		}
		assertThat(sinkRows(database)).isEqualTo(ROWS);
		assertThat(CheckpointCrashIntegrationTests.query(database,
				"SELECT count(*) FROM " + SOURCE + " s WHERE NOT " + "EXISTS (SELECT 1 FROM " + SINK
						+ " d WHERE d.k = s.k AND d.tx = s.tx)"))
			.as("source rows missing from the sink")
			.isEqualTo("0");
	}

	private ChildJvm startChild(PostgresDatabase database, int generation) {
		return ChildJvm.of(CrashMarqueeApplication.class)
			.args("--spring.datasource.url=" + database.jdbcUrl(),
					"--spring.datasource.username=" + database.username(), "--spring.main.web-application-type=none",
					"--spring.main.banner-mode=off", "--postlog.slot.name=" + SLOT,
					"--postlog.slot.lifecycle=create-if-missing", "--postlog.publication.name=" + SLOT,
					"--postlog.publication.mode=existing", "--postlog.tables=" + SOURCE,
					"--postlog.checkpoint.store=jdbc", "--postlog.snapshot.mode=initial",
					"--postlog.snapshot.chunk-size=1000", "--postlog.status-interval=1s",
					"--postlog.retry.initial-interval=100ms", "--postlog.retry.max-interval=1s",
					"--marquee.sink=" + SINK, "--marquee.pause-every=4")
			.start(this.directory.resolve("child-" + generation + ".log"));
	}

	private static long sinkRows(PostgresDatabase database) throws Exception {
		return Long.parseLong(CheckpointCrashIntegrationTests.query(database, "SELECT count(*) FROM " + SINK));
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
