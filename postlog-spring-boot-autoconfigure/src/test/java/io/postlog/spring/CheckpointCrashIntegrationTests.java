package io.postlog.spring;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.postlog.Lsn;
import io.postlog.consumer.checkpoint.CheckpointTable;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The crash marquee: a Boot application in a child JVM, whose {@code @Transactional}
 * listener inserts every change into a sink table without a unique constraint, is killed
 * with SIGKILL at random points while a writer commits transactions of 1 to 500 rows, and
 * started again each time. With {@code postlog.checkpoint.store=jdbc} every source row
 * ends up in the sink exactly once; with {@code slot} nothing is lost and the duplicates
 * are counted. {@code -Dpostlog.marquee.kills} and {@code -Dpostlog.marquee.transactions}
 * size it (8 and 2,000 by default; the {@code marquee} profile runs 50 and 20,000). The
 * two stores' marquees run side by side, each with its own tables, slot and writer, so
 * the duplicate count of {@code slot} is measured under the same load as {@code jdbc}'s.
 */
@PostgresTest
class CheckpointCrashIntegrationTests {

	private static final int KILLS = Integer.getInteger("postlog.marquee.kills", 8);

	private static final int TRANSACTIONS = Integer.getInteger("postlog.marquee.transactions", 2000);

	/**
	 * How long a child lives once it has started: up to well into delivery. Every fourth
	 * child is killed instead at a random point after launch, mostly inside start-up.
	 */
	private static final int MAX_LIFE_MILLIS = 4000;

	/**
	 * What one generation takes on a shared 2-core machine, start-up included, roughly.
	 */
	private static final int GENERATION_MILLIS = 9000;

	private final Path directory = Paths.get("target", "checkpoint-crash-test");

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void jdbcCheckpointStoreSinksEveryRowExactlyOnceAcrossKills(PostgresDatabase database) throws Exception {
		Result result = marquee(database, "jdbc");
		assertThat(result.lost).as("source rows missing from the sink").isZero();
		assertThat(result.duplicates).as("source rows in the sink more than once").isZero();
		assertThat(result.generationsThatCheckpointed).as("kills that came after the child had delivered")
			.isGreaterThanOrEqualTo(KILLS / 4);
	}

	@Test
	@Execution(ExecutionMode.CONCURRENT)
	void slotCheckpointStoreLosesNothingAndCountsItsDuplicates(PostgresDatabase database) throws Exception {
		Result result = marquee(database, "slot");
		assertThat(result.lost).as("source rows missing from the sink").isZero();
	}

	private Result marquee(PostgresDatabase database, String store) throws Exception {
		String source = "marquee_source_" + store;
		String sink = "marquee_sink_" + store;
		String slot = "marquee_" + store;
		// The publication first: the other store's proof writes into the same database
		// meanwhile, and a slot holding a change from before its publication existed
		// cannot stream (start-up refuses it).
		database.execute("CREATE TABLE " + source + " (k bigint PRIMARY KEY, tx int NOT NULL)",
				"CREATE TABLE " + sink + " (k bigint NOT NULL, tx int NOT NULL)",
				"CREATE PUBLICATION " + slot + " FOR TABLE " + source,
				"SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
		Path logs = this.directory.resolve(store);
		clean(logs);
		Files.createDirectories(logs);
		Random random = new Random(("marquee-" + store).hashCode());
		if (store.equals("jdbc")) {
			// As an application that manages its schema would; the child finds it there.
			database.execute(CheckpointTable.of(CheckpointTable.DEFAULT_NAME, slot).ddl());
		}
		long pacing = TimeUnit.MILLISECONDS.toNanos((long) KILLS * GENERATION_MILLIS) / TRANSACTIONS;
		Writer writer = new Writer(database, source, TRANSACTIONS, pacing);
		Thread writerThread = new Thread(writer, "marquee-writer-" + store);
		long started = System.nanoTime();
		writerThread.start();
		List<Lsn> checkpoints = new ArrayList<>();
		try {
			for (int generation = 0; generation < KILLS; generation++) {
				Process child = startChild(database, store, slot, source, sink, logs, generation);
				if (generation % 4 == 3) {
					Thread.sleep(500 + random.nextInt(MAX_LIFE_MILLIS));
				}
				else {
					awaitStarted(logs.resolve("child-" + generation + ".log"), child);
					Thread.sleep(random.nextInt(MAX_LIFE_MILLIS));
				}
				child.destroyForcibly();
				assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
				await().atMost(Duration.ofSeconds(30))
					.until(() -> query(database,
							"SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + slot + "'") == null);
				checkpoints.add(checkpoint(database, slot, store));
			}
			writerThread.join(TimeUnit.MINUTES.toMillis(10));
		}
		finally {
			writer.stopped = true;
			writerThread.join(TimeUnit.SECONDS.toMillis(30));
		}
		assertThat(writer.failure.get()).isNull();
		assertThat(writer.transactions).isEqualTo(TRANSACTIONS);
		long written = writer.written.get();
		Lsn end = Lsn.parse(query(database, "SELECT pg_current_wal_lsn()::text"));
		Process last = startChild(database, store, slot, source, sink, logs, KILLS);
		try {
			await().atMost(Duration.ofMinutes(10))
				.pollInterval(Duration.ofSeconds(1))
				.until(() -> Long.parseLong(query(database, "SELECT count(DISTINCT k) FROM " + sink)) >= written && Lsn
					.parse(query(database,
							"SELECT confirmed_flush_lsn::text FROM pg_replication_slots " + "WHERE slot_name = '" + slot
									+ "'"))
					.compareTo(end) >= 0);
		}
		finally {
			last.getOutputStream().close();
			if (!last.waitFor(60, TimeUnit.SECONDS)) {
				last.destroyForcibly();
			}
		}
		long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
		long sinkRows = Long.parseLong(query(database, "SELECT count(*) FROM " + sink));
		long distinct = Long.parseLong(query(database, "SELECT count(DISTINCT k) FROM " + sink));
		long lost = Long.parseLong(query(database, "SELECT count(*) FROM " + source + " s WHERE NOT EXISTS "
				+ "(SELECT 1 FROM " + sink + " d WHERE d.k = s.k)"));
		long strays = Long.parseLong(query(database, "SELECT count(*) FROM " + sink + " d WHERE NOT EXISTS "
				+ "(SELECT 1 FROM " + source + " s WHERE s.k = d.k)"));
		int checkpointed = 0;
		for (int i = 0; i < checkpoints.size(); i++) {
			Lsn before = (i == 0) ? Lsn.INVALID : checkpoints.get(i - 1);
			if (checkpoints.get(i).isAfter(before)) {
				checkpointed++;
			}
		}
		Result result = new Result(written, sinkRows - distinct, lost, checkpointed);
		System.out.println("[marquee] checkpoint.store=" + store + ": " + KILLS + " kills, " + TRANSACTIONS
				+ " transactions, " + written + " source rows; sink rows " + sinkRows + ", lost " + lost
				+ ", duplicated " + result.duplicates + ", strays " + strays + "; " + checkpointed
				+ " of the kills came " + "after the child had moved the "
				+ (store.equals("jdbc") ? "checkpoint" : "slot") + "; " + seconds + " s");
		assertThat(strays).as("sink rows of no source row").isZero();
		return result;
	}

	private static void awaitStarted(Path log, Process child) {
		await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(50)).until(() -> {
			assertThat(child.isAlive()).as("child running (see %s)", log).isTrue();
			return Files.exists(log) && Files.readString(log).contains("\nstarted\n");
		});
	}

	private static Lsn checkpoint(PostgresDatabase database, String slot, String store) throws Exception {
		String sql = store.equals("jdbc")
				? "SELECT commit_lsn::text FROM postlog_checkpoint WHERE slot_name = '" + slot + "'"
				: "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'";
		String text = query(database, sql);
		return (text != null) ? Lsn.parse(text) : Lsn.INVALID;
	}

	private Process startChild(PostgresDatabase database, String store, String slot, String source, String sink,
			Path logs, int generation) throws IOException {
		String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
		ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp",
				System.getProperty("java.class.path"), CrashMarqueeApplication.class.getName(),
				"--spring.datasource.url=" + database.jdbcUrl(), "--spring.datasource.username=" + database.username(),
				"--spring.main.web-application-type=none", "--spring.main.banner-mode=off",
				"--postlog.slot.name=" + slot, "--postlog.slot.lifecycle=existing",
				"--postlog.publication.name=" + slot, "--postlog.publication.mode=existing",
				"--postlog.tables=" + source, "--postlog.checkpoint.store=" + store, "--postlog.status-interval=1s",
				"--postlog.retry.initial-interval=100ms", "--postlog.retry.max-interval=1s", "--marquee.sink=" + sink);
		builder.redirectErrorStream(true);
		builder.redirectOutput(logs.resolve("child-" + generation + ".log").toFile());
		return builder.start();
	}

	static String query(PostgresDatabase database, String sql) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(sql)) {
			return rows.next() ? rows.getString(1) : null;
		}
	}

	private static void clean(Path directory) throws IOException {
		File[] files = directory.toFile().listFiles();
		if (files != null) {
			for (File file : files) {
				Files.delete(file.toPath());
			}
		}
	}

	private record Result(long written, long duplicates, long lost, int generationsThatCheckpointed) {
	}

	/**
	 * Commits a given number of transactions of 1 to 500 rows with consecutive keys,
	 * paced to last about as long as the kills.
	 */
	private static final class Writer implements Runnable {

		private final PostgresDatabase database;

		private final String table;

		private final int total;

		private final long pacingNanos;

		final AtomicLong written = new AtomicLong();

		final AtomicReference<Throwable> failure = new AtomicReference<>();

		volatile int transactions;

		volatile boolean stopped;

		Writer(PostgresDatabase database, String table, int total, long pacingNanos) {
			this.database = database;
			this.table = table;
			this.total = total;
			this.pacingNanos = pacingNanos;
		}

		@Override
		public void run() {
			Random random = new Random(42);
			long start = System.nanoTime();
			try (Connection connection = this.database.connect(); Statement statement = connection.createStatement()) {
				connection.setAutoCommit(false);
				while (!this.stopped && this.transactions < this.total) {
					int dice = random.nextInt(100);
					int size = (dice < 70) ? 1 + random.nextInt(5)
							: (dice < 95) ? 6 + random.nextInt(45) : 51 + random.nextInt(450);
					long from = this.written.get() + 1;
					statement.execute("INSERT INTO " + this.table + " SELECT g, " + this.transactions
							+ " FROM generate_series(" + from + ", " + (from + size - 1) + ") g");
					connection.commit();
					this.written.addAndGet(size);
					this.transactions++;
					long due = start + this.transactions * this.pacingNanos;
					long wait = due - System.nanoTime();
					if (wait > 0) {
						TimeUnit.NANOSECONDS.sleep(wait);
					}
				}
			}
			catch (Throwable ex) {
				this.failure.set(ex);
			}
		}

	}

}
