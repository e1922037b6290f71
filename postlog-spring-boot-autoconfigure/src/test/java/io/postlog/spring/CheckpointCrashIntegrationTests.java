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

import io.postlog.Lsn;
import io.postlog.consumer.checkpoint.CheckpointTable;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import io.postlog.test.crash.KillLoop;
import io.postlog.test.crash.SlotProbe;
import io.postlog.test.crash.SourceWriter;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
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
 * <p>
 * Time bounds follow the work, not the clock: three of four children are killed at a
 * random point after their first delivery (however long a loaded machine takes to start
 * them), and the last child, which works through whatever the killed ones left, may take
 * as long as it keeps moving; the proof fails when it stands still for
 * {@link #STALL_MINUTES} minutes, saying where the sink and the slot stood.
 */
@PostgresTest
@Tag("crash")
class CheckpointCrashIntegrationTests {

	@RegisterExtension
	static final KillLoop killLoop = new KillLoop();

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

	/**
	 * How long the last child may go without adding a row to the sink or moving the slot.
	 */
	private static final int STALL_MINUTES = 3;

	/**
	 * How long the last child may take in all, however steadily it moves.
	 */
	private static final int CATCH_UP_LIMIT_MINUTES = 30;

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
		Random random = killLoop.random("kills-" + store);
		if (store.equals("jdbc")) {
			// As an application that manages its schema would; the child finds it there.
			database.execute(CheckpointTable.of(CheckpointTable.DEFAULT_NAME, slot).ddl());
		}
		long pacing = TimeUnit.MILLISECONDS.toNanos((long) KILLS * GENERATION_MILLIS) / TRANSACTIONS;
		SlotProbe probe = new SlotProbe(database, slot);
		long started = System.nanoTime();
		SourceWriter writer = SourceWriter.on(database)
			.name("marquee-writer-" + store)
			.random(killLoop.random("writer-" + store))
			.period(Duration.ofNanos(pacing))
			.limit(TRANSACTIONS)
			.start((statement, tally) -> {
				// Transactions of 1 to 500 rows, the transaction's number (from 0) in
				// each.
				int dice = tally.random().nextInt(100);
				int size = (dice < 70) ? 1 + tally.random().nextInt(5)
						: (dice < 95) ? 6 + tally.random().nextInt(45) : 51 + tally.random().nextInt(450);
				long from = tally.nextKey();
				statement.execute("INSERT INTO " + source + " SELECT g, " + (tally.number() - 1)
						+ " FROM generate_series(" + from + ", " + (from + size - 1) + ") g");
				tally.inserted(size);
			});
		List<Lsn> checkpoints = new ArrayList<>();
		try {
			for (int generation = 0; generation < KILLS; generation++) {
				long sinkRowsBefore = count(database, "SELECT count(*) FROM " + sink);
				try (ChildJvm child = startChild(database, store, slot, source, sink, logs, generation,
						ChildJvm.FAST_START_FLAGS)) {
					if (generation % 4 == 3) {
						Thread.sleep(KillLoop.between(random, 500, MAX_LIFE_MILLIS).toMillis());
					}
					else {
						child.awaitOutput("\nstarted\n", Duration.ofSeconds(120));
						awaitDelivery(database, sink, sinkRowsBefore, writer);
						Thread.sleep(KillLoop.between(random, 0, MAX_LIFE_MILLIS).toMillis());
					}
					child.kill();
				}
				probe.awaitInactive(Duration.ofSeconds(30));
				checkpoints.add(checkpoint(database, slot, store));
			}
			writer.awaitDone(Duration.ofMinutes(10));
		}
		finally {
			writer.stop();
		}
		assertThat(writer.transactions()).isEqualTo(TRANSACTIONS);
		long written = writer.inserted();
		long end = SlotProbe.currentLsn(database);
		// The last child's start-up is not what is measured and its backlog is most of
		// the stream: it runs with the JVM's own compilers.
		try (ChildJvm last = startChild(database, store, slot, source, sink, logs, KILLS, List.of())) {
			awaitCaughtUp(database, store, probe, sink, written, end);
			last.stop(Duration.ofSeconds(60));
		}
		long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
		long sinkRows = count(database, "SELECT count(*) FROM " + sink);
		long distinct = count(database, "SELECT count(DISTINCT k) FROM " + sink);
		long lost = count(database, "SELECT count(*) FROM " + source + " s WHERE NOT EXISTS " + "(SELECT 1 FROM " + sink
				+ " d WHERE d.k = s.k)");
		long strays = count(database, "SELECT count(*) FROM " + sink + " d WHERE NOT EXISTS " + "(SELECT 1 FROM "
				+ source + " s WHERE s.k = d.k)");
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

	/**
	 * Waits until the child has added a row to the sink, so that the kill that follows
	 * lands in delivery, or until nothing is left to deliver; after a minute the kill
	 * comes anyway, with a line saying so (the final wait is where a child that delivers
	 * nothing fails).
	 */
	private static void awaitDelivery(PostgresDatabase database, String sink, long sinkRowsBefore, SourceWriter writer)
			throws Exception {
		try {
			await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100)).until(() -> {
				long rows = count(database, "SELECT count(*) FROM " + sink);
				return rows > sinkRowsBefore || (writer.transactions() == TRANSACTIONS
						&& holdsEveryRow(database, sink, rows, writer.inserted()));
			});
		}
		catch (ConditionTimeoutException ex) {
			System.out.println("[diagnose] " + sink + ": a child delivered nothing within a minute of its start; "
					+ "killing it all the same");
		}
	}

	/**
	 * Returns whether the sink holds every written row. Counting distinct keys sorts the
	 * whole sink, about twice the work of counting its rows at the marquee's size, and
	 * the waits poll every 100 ms to 1 s; so it is done only once the sink has at least
	 * as many rows, duplicates included, as were written.
	 */
	private static boolean holdsEveryRow(PostgresDatabase database, String sink, long rows, long written)
			throws Exception {
		return rows >= written && count(database, "SELECT count(DISTINCT k) FROM " + sink) >= written;
	}

	/**
	 * Waits until the sink holds every written row and the slot has confirmed
	 * {@code end}, for as long as one of them moves.
	 * @throws AssertionError naming where both stood, if neither moved for
	 * {@link #STALL_MINUTES} minutes or the wait went past
	 * {@link #CATCH_UP_LIMIT_MINUTES}
	 */
	private static void awaitCaughtUp(PostgresDatabase database, String store, SlotProbe probe, String sink,
			long written, long end) {
		CatchUp catchUp = new CatchUp(database, probe, sink, written, end);
		try {
			await().atMost(Duration.ofMinutes(CATCH_UP_LIMIT_MINUTES))
				.pollInterval(Duration.ofSeconds(1))
				.failFast("the last child stood still for " + STALL_MINUTES + " minutes", catchUp::stalled)
				.until(catchUp::done);
		}
		catch (ConditionTimeoutException | TerminalFailureException ex) {
			String diagnosis = "[diagnose] checkpoint.store=" + store + ": " + ex.getMessage() + "; " + catchUp.where();
			System.out.println(diagnosis);
			throw new AssertionError(diagnosis, ex);
		}
		System.out.println("[marquee] checkpoint.store=" + store + ": the last child caught up in "
				+ TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - catchUp.began) + " s");
	}

	private static Lsn checkpoint(PostgresDatabase database, String slot, String store) throws Exception {
		String sql = store.equals("jdbc")
				? "SELECT commit_lsn::text FROM postlog_checkpoint WHERE slot_name = '" + slot + "'"
				: "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'";
		String text = query(database, sql);
		return (text != null) ? Lsn.parse(text) : Lsn.INVALID;
	}

	private ChildJvm startChild(PostgresDatabase database, String store, String slot, String source, String sink,
			Path logs, int generation, List<String> jvmFlags) {
		return ChildJvm.of(CrashMarqueeApplication.class)
			.startupFlags(jvmFlags)
			.args("--spring.datasource.url=" + database.jdbcUrl(),
					"--spring.datasource.username=" + database.username(), "--spring.main.web-application-type=none",
					"--spring.main.banner-mode=off", "--postlog.slot.name=" + slot, "--postlog.slot.lifecycle=existing",
					"--postlog.publication.name=" + slot, "--postlog.publication.mode=existing",
					"--postlog.tables=" + source, "--postlog.checkpoint.store=" + store, "--postlog.status-interval=1s",
					"--postlog.retry.initial-interval=100ms", "--postlog.retry.max-interval=1s",
					"--marquee.sink=" + sink)
			.start(logs.resolve("child-" + generation + ".log"));
	}

	private static long count(PostgresDatabase database, String sql) throws Exception {
		return Long.parseLong(query(database, sql));
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

	/**
	 * The last child's progress, polled: the sink's rows and the slot's confirmed
	 * position, and when either last moved.
	 */
	private static final class CatchUp {

		private final PostgresDatabase database;

		private final SlotProbe probe;

		private final String sink;

		private final long written;

		private final long end;

		private final long began = System.nanoTime();

		private long moved = this.began;

		private long rows = -1;

		private long confirmed = -1;

		CatchUp(PostgresDatabase database, SlotProbe probe, String sink, long written, long end) {
			this.database = database;
			this.probe = probe;
			this.sink = sink;
			this.written = written;
			this.end = end;
		}

		boolean done() throws Exception {
			long rows = count(this.database, "SELECT count(*) FROM " + this.sink);
			long confirmed = this.probe.confirmedFlushLsn();
			if (rows != this.rows || confirmed != this.confirmed) {
				this.moved = System.nanoTime();
				this.rows = rows;
				this.confirmed = confirmed;
			}
			return Long.compareUnsigned(confirmed, this.end) >= 0
					&& holdsEveryRow(this.database, this.sink, rows, this.written);
		}

		boolean stalled() {
			return System.nanoTime() - this.moved > TimeUnit.MINUTES.toNanos(STALL_MINUTES);
		}

		String where() {
			return "sink holds " + this.rows + " rows (duplicates included) of " + this.written
					+ " written, slot confirmed " + SlotProbe.format(this.confirmed) + " of "
					+ SlotProbe.format(this.end);
		}

	}

	private record Result(long written, long duplicates, long lost, int generationsThatCheckpointed) {
	}

}
