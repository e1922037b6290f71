package io.postlog.benchmarks.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.Backfill;
import io.postlog.consumer.ConsumerListener;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.SnapshotProgress;
import io.postlog.snapshot.ExportedSnapshot;
import io.postlog.snapshot.SnapshotConnections;
import io.postlog.snapshot.SnapshotOptions;
import io.postlog.snapshot.SnapshotReader;
import io.postlog.types.ValueDecoders;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.copy.CopyManager;
import org.postgresql.copy.CopyOut;

/**
 * A backfill's rate while the stream carries a steady load, against the initial
 * snapshot's rate, and the latency of the streamed changes with and without the backfill,
 * in one run. Per run: the initial snapshot's reader (parallelism 2, the default) over
 * the table into a counting sink; then a consumer with backfills streaming a small table
 * into which a writer (a JVM of its own, see {@link #startWriter}) commits {@code rate}
 * single-row transactions a second, measured for {@code seconds} without a backfill, then
 * while the whole table is backfilled, then while another session reads the table the
 * backfill's way at the rate the backfill just ran at and throws the rows away (the
 * reference: what the server and the machine alone cost the stream at that rate), the
 * same again with the cores the backfill kept this JVM busy beyond the copy's burnt
 * beside it by another process (a floor with the backfill's CPU: what a stream gets from
 * a machine that busy, none of the work in its JVM), and once more unpaced. Before the
 * stream: the consumer's snapshot again with one reader in the backfill's chunks, and the
 * unpaced key-order read alone (the floors of a backfill's rate). Latency is delivery
 * time minus commit time (one machine, one clock). Prints {@code RESULT} lines; those of
 * the reads and of the backfill also carry the CPU seconds this JVM and the server spent
 * meanwhile ({@link CpuClock}). Arguments:
 * {@code url= user= table=bench_rows rows= rate=1000 seconds=10 chunk=10000 runs=1} (and
 * {@code writer=true url= user= rate= run=} for the writer itself). The burner is
 * {@link CpuBurner}.
 */
public final class BackfillLeg {

	private BackfillLeg() {
	}

	public static void main(String[] args) throws Exception {
		String url = Tally.arg(args, "url", null);
		String user = Tally.arg(args, "user", "postgres");
		if (Boolean.parseBoolean(Tally.arg(args, "writer", "false"))) {
			// The streamed table's writer (see startWriter): it ends with its
			// parent, even one that exits without stopping it.
			ProcessHandle.current().parent().ifPresent((parent) -> parent.onExit().thenRun(() -> System.exit(0)));
			write(url, user, Integer.parseInt(Tally.arg(args, "rate", "1000")),
					Integer.parseInt(Tally.arg(args, "run", "1")));
			return;
		}
		String table = Tally.arg(args, "table", "bench_rows");
		long rows = Long.parseLong(Tally.arg(args, "rows", null));
		int rate = Integer.parseInt(Tally.arg(args, "rate", "1000"));
		int seconds = Integer.parseInt(Tally.arg(args, "seconds", "10"));
		int chunk = Integer.parseInt(Tally.arg(args, "chunk", "10000"));
		int runs = Integer.parseInt(Tally.arg(args, "runs", "1"));
		try (Connection connection = DriverManager.getConnection(url, user, null);
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE TABLE IF NOT EXISTS bench_stream (id bigint PRIMARY KEY, note text)");
		}
		CpuClock cpu = CpuClock.of(url, user);
		for (int run = 1; run <= runs; run++) {
			snapshot(url, user, table, rows, run, cpu);
			consumerSnapshot(url, user, table, rows, run, SnapshotOptions.DEFAULT_PARALLELISM,
					SnapshotOptions.DEFAULT_CHUNK_SIZE, "consumer-initial-snapshot", cpu);
			// One reader in the backfill's chunks: a backfill reads its chunks one after
			// the other (each starts after the last key of the one before).
			consumerSnapshot(url, user, table, rows, run, 1, chunk, "consumer-initial-snapshot-1x" + chunk, cpu);
			keyOrderCopy(url, user, table, rows, chunk, run, "copy-by-key", cpu);
			stream(url, user, table, rows, rate, seconds, chunk, run, cpu);
		}
	}

	private static void snapshot(String url, String user, String table, long rows, int run, CpuClock cpu)
			throws Exception {
		Properties properties = new Properties();
		PGProperty.USER.set(properties, user);
		PGProperty.REPLICATION.set(properties, "database");
		PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "10");
		PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
		AtomicLong count = new AtomicLong();
		try (ExportedSnapshot snapshot = ExportedSnapshot.create(DriverManager.getConnection(url, properties),
				"bench_backfill_snapshot_" + run, true)) {
			double[] cpuBefore = cpu.now();
			long start = System.nanoTime();
			new SnapshotReader(SnapshotConnections.of(url, user, null), ValueDecoders.standard()).read(snapshot,
					List.of(TableId.parse(table)), SnapshotOptions.defaults(), (change) -> count.incrementAndGet());
			double elapsed = (System.nanoTime() - start) / 1e9;
			System.out.println(String.format(Locale.ROOT,
					"RESULT leg=initial-snapshot run=%d rows=%d seconds=%.3f rows_per_s=%.0f", run, count.get(),
					elapsed, count.get() / elapsed) + cpu.since(cpuBefore));
		}
	}

	/**
	 * The initial snapshot as a consumer delivers it to a listener (parallelism 2, the
	 * default), from the snapshot's start to its hand-over: the rows alone, as the
	 * backfill's rate counts its rows alone.
	 */
	private static double consumerSnapshot(String url, String user, String table, long rows, int run, int parallelism,
			int chunkSize, String leg, CpuClock cpu) throws Exception {
		AtomicLong count = new AtomicLong();
		long[] started = new long[1];
		long[] ended = new long[1];
		double[][] cpuAt = new double[2][];
		CountDownLatch handedOver = new CountDownLatch(1);
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(url, user, null)
			.slotName("bench_backfill_initial_" + run + "_" + parallelism)
			.slotLifecycle(SlotLifecycle.OWNED)
			.publicationName("bench_backfill_initial_pub")
			.tables(List.of(TableId.parse(table)))
			.initialSnapshot(parallelism, chunkSize)
			.listener(new ConsumerListener() {

				@Override
				public void snapshotStarted(Lsn consistentPoint, List<TableId> tables) {
					started[0] = System.nanoTime();
					cpuAt[0] = cpu.now();
				}

				@Override
				public void snapshotCompleted(SnapshotProgress progress) {
					ended[0] = System.nanoTime();
					cpuAt[1] = cpu.now();
					handedOver.countDown();
				}

			})
			.changeHandler((change) -> count.incrementAndGet())
			.build();
		consumer.start();
		double server;
		try {
			if (!handedOver.await(30, TimeUnit.MINUTES)) {
				throw new IllegalStateException("The consumer's snapshot did not complete");
			}
			server = cpu.settledServer();
		}
		finally {
			consumer.stop();
		}
		if (count.get() != rows) {
			System.out.println("FAILED leg=" + leg + " run=" + run + " expected=" + rows + " received=" + count.get());
			System.exit(1);
		}
		double elapsed = (ended[0] - started[0]) / 1e9;
		System.out.println(String.format(Locale.ROOT, "RESULT leg=%s run=%d rows=%d seconds=%.3f rows_per_s=%.0f", leg,
				run, count.get(), elapsed, count.get() / elapsed) + CpuClock.fields(cpuAt[0], cpuAt[1][0], server));
		return count.get() / elapsed;
	}

	/**
	 * The floor of reading in key order: a plain session reads the table the backfill's
	 * way ({@link #copyByKey}), as fast as the server sends it, decoding nothing; run
	 * with no stream ({@code copy-by-key}) and while the stream runs
	 * ({@code copy-by-key-while-streaming}).
	 */
	private static void keyOrderCopy(String url, String user, String table, long rows, int chunk, int run, String leg,
			CpuClock cpu) throws Exception {
		double[] cpuBefore = cpu.now();
		long start = System.nanoTime();
		long copied = copyByKey(url, user, table, chunk, Double.POSITIVE_INFINITY);
		double elapsed = (System.nanoTime() - start) / 1e9;
		if (copied != rows) {
			System.out.println("FAILED leg=" + leg + " rows=" + copied);
			System.exit(1);
		}
		System.out.println(String.format(Locale.ROOT, "RESULT leg=%s run=%d rows=%d seconds=%.3f rows_per_s=%.0f", leg,
				run, copied, elapsed, copied / elapsed) + cpu.since(cpuBefore));
	}

	private static void stream(String url, String user, String table, long rows, int rate, int seconds, int chunk,
			int run, CpuClock cpu) throws Exception {
		List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
		AtomicLong snapshotRows = new AtomicLong();
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(url, user, null)
			.slotName("bench_backfill_" + run)
			.publicationName("bench_backfill_pub")
			.tables(List.of(TableId.parse(table), TableId.parse("bench_stream")))
			.statusInterval(Duration.ofSeconds(1))
			.backfills(chunk)
			.changeHandler((change) -> {
				if (change.operation() == Operation.SNAPSHOT) {
					snapshotRows.incrementAndGet();
				}
				else if (change.table().name().equals("bench_stream")) {
					latencies.add(Duration.between(change.commitTime(), Instant.now()).toNanos());
				}
			})
			.build();
		consumer.start();
		// The stream's two threads: how long they waited for a core in each leg.
		RunQueue streamThreads = new RunQueue(List.of("postlog-reader", "postlog-deliver"));
		Process writer = startWriter(url, user, rate, run);
		try {
			Thread.sleep(2000);
			latencies.clear();
			Map<String, long[]> waitBefore = streamThreads.now();
			Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
			report("stream-only", run, new ArrayList<>(latencies), 0, 0, streamThreads.since(waitBefore));
			latencies.clear();
			waitBefore = streamThreads.now();
			double[] cpuBefore = cpu.now();
			long start = System.nanoTime();
			Backfill backfill = consumer.backfill(List.of(TableId.parse(table)));
			while (backfill.state() != Backfill.State.COMPLETED) {
				if (backfill.state() == Backfill.State.FAILED) {
					throw new IllegalStateException("Backfill failed", backfill.failure());
				}
				Thread.sleep(5);
			}
			double elapsed = (System.nanoTime() - start) / 1e9;
			if (snapshotRows.get() < rows / 2) {
				System.out.println("FAILED leg=backfill rows=" + snapshotRows.get());
				System.exit(1);
			}
			double backfillClient = cpu.now()[0] - cpuBefore[0];
			double backfillSeconds = elapsed;
			String waited = streamThreads.since(waitBefore);
			report("stream-during-backfill", run, new ArrayList<>(latencies), snapshotRows.get(), elapsed,
					cpu.since(cpuBefore) + waited);
			latencies.clear();
			waitBefore = streamThreads.now();
			cpuBefore = cpu.now();
			start = System.nanoTime();
			// Paced to the backfill's own rate: the same read load on the server.
			long copied = copyByKey(url, user, table, chunk, snapshotRows.get() / backfillSeconds);
			elapsed = (System.nanoTime() - start) / 1e9;
			if (copied != rows) {
				System.out.println("FAILED leg=copy rows=" + copied);
				System.exit(1);
			}
			double copyClient = cpu.now()[0] - cpuBefore[0];
			waited = streamThreads.since(waitBefore);
			report("stream-during-copy", run, new ArrayList<>(latencies), copied, elapsed,
					cpu.since(cpuBefore) + waited);
			// The same read again, with the cores this JVM kept busy beyond the copy's
			// while it backfilled burnt beside it, in another process.
			double load = Math.max(0, backfillClient / backfillSeconds - copyClient / elapsed);
			Process burner = CpuBurner.start(load);
			double burnt;
			try {
				double burntBefore = CpuBurner.cpuSeconds(burner);
				latencies.clear();
				waitBefore = streamThreads.now();
				cpuBefore = cpu.now();
				start = System.nanoTime();
				copied = copyByKey(url, user, table, chunk, snapshotRows.get() / backfillSeconds);
				elapsed = (System.nanoTime() - start) / 1e9;
				burnt = CpuBurner.cpuSeconds(burner) - burntBefore;
				waited = streamThreads.since(waitBefore);
			}
			finally {
				burner.destroy();
				burner.waitFor();
			}
			if (copied != rows) {
				System.out.println("FAILED leg=copy-with-load rows=" + copied);
				System.exit(1);
			}
			report("stream-during-copy-with-load", run, new ArrayList<>(latencies), copied, elapsed,
					cpu.since(cpuBefore) + waited
							+ String.format(Locale.ROOT, " load_cores=%.2f load_cpu_s=%.2f", load, burnt));
			keyOrderCopy(url, user, table, rows, chunk, run, "copy-by-key-while-streaming", cpu);
			if (!writer.isAlive()) {
				System.out.println("FAILED leg=writer exit=" + writer.exitValue());
				System.exit(1);
			}
		}
		finally {
			writer.destroy();
			writer.waitFor();
			consumer.stop();
			try (Connection connection = DriverManager.getConnection(url, user, null);
					Statement statement = connection.createStatement()) {
				statement.execute("SELECT pg_drop_replication_slot('bench_backfill_" + run + "')");
				statement.execute("DELETE FROM postlog_backfill");
			}
		}
	}

	/**
	 * The reference for the backfill's effect on the stream: another session reads the
	 * whole table as the backfill does (binary {@code COPY} of {@code chunk} rows in key
	 * order after the last key, one short transaction each), and throws the bytes away,
	 * paced to the rate the backfill ran at in the same run. What the stream's latency
	 * does meanwhile is the server's and the machine's share of a backfill at that rate.
	 * @return the rows read
	 */
	private static long copyByKey(String url, String user, String table, int chunk, double rowsPerSecond)
			throws Exception {
		long start = System.nanoTime();
		long rows = 0;
		try (Connection connection = DriverManager.getConnection(url, user, null)) {
			CopyManager copy = connection.unwrap(PGConnection.class).getCopyAPI();
			long after = Long.MIN_VALUE;
			while (true) {
				long last = after;
				long read = 0;
				try (Statement statement = connection.createStatement()) {
					statement.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
				}
				CopyOut out = copy.copyOut("COPY (SELECT id::text, * FROM " + table + " WHERE id > " + after
						+ " ORDER BY " + table + ".id LIMIT " + chunk + ") TO STDOUT (FORMAT binary)");
				byte[] data;
				while ((data = out.readFromCopy()) != null) {
					// A CopyData message per row; the first also has the 19-byte header,
					// and the trailer is a field count of -1.
					int offset = (data[0] == 'P') ? 19 : 0;
					if (data.length - offset > 6 && data[offset] != -1) {
						read++;
						last = firstField(data, offset);
					}
				}
				try (Statement statement = connection.createStatement()) {
					statement.execute("COMMIT");
				}
				rows += read;
				if (read < chunk) {
					return rows;
				}
				after = last;
				long due = start + (long) (rows / rowsPerSecond * 1e9) - System.nanoTime();
				if (due > 0) {
					TimeUnit.NANOSECONDS.sleep(due);
				}
			}
		}
	}

	/** The first field of a binary COPY row, the key's text, as a number. */
	private static long firstField(byte[] data, int offset) {
		int length = ((data[offset + 2] & 0xff) << 24) | ((data[offset + 3] & 0xff) << 16)
				| ((data[offset + 4] & 0xff) << 8) | (data[offset + 5] & 0xff);
		return Long.parseLong(new String(data, offset + 6, length, StandardCharsets.US_ASCII));
	}

	/**
	 * Starts the streamed table's writer in a JVM of its own: were it a thread of this
	 * one, each of this JVM's collector pauses would pause the writer too, and hold back
	 * the very commits whose latency the pause would raise (the writer catches up on its
	 * schedule afterwards, with fresh commit times). Ended by {@link Process#destroy()}.
	 */
	private static Process startWriter(String url, String user, int rate, int run) throws IOException {
		String java = ProcessHandle.current().info().command().orElse("java");
		return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), BackfillLeg.class.getName(),
				"writer=true", "url=" + url, "user=" + user, "rate=" + rate, "run=" + run)
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.INHERIT)
			.start();
	}

	private static void write(String url, String user, int rate, int run) {
		try (Connection connection = DriverManager.getConnection(url, user, null);
				PreparedStatement insert = connection.prepareStatement("INSERT INTO bench_stream VALUES (?, 'x')")) {
			long id = run * 100_000_000L;
			long start = System.nanoTime();
			for (long i = 0;; i++) {
				long wait = start + i * 1_000_000_000L / rate - System.nanoTime();
				if (wait > 0) {
					TimeUnit.NANOSECONDS.sleep(wait);
				}
				insert.setLong(1, id++);
				insert.executeUpdate();
			}
		}
		catch (Exception ex) {
			System.out.println("FAILED leg=writer " + ex);
			System.exit(1);
		}
	}

	private static void report(String leg, int run, List<Long> latencies, long rows, double seconds, String cpu) {
		Collections.sort(latencies);
		double p50 = latencies.isEmpty() ? 0 : latencies.get(latencies.size() / 2) / 1e6;
		double p99 = latencies.isEmpty() ? 0 : latencies.get((int) (latencies.size() * 0.99)) / 1e6;
		System.out.println(String.format(Locale.ROOT,
				"RESULT leg=%s run=%d changes=%d p50_ms=%.1f p99_ms=%.1f backfill_rows=%d backfill_seconds=%.3f"
						+ " backfill_rows_per_s=%.0f",
				leg, run, latencies.size(), p50, p99, rows, seconds, (seconds > 0) ? rows / seconds : 0) + cpu);
	}

}
