package io.postlog.benchmarks.e2e;

import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.sun.management.OperatingSystemMXBean;
import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.ConsumerListener;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.SnapshotProgress;
import io.postlog.snapshot.ExportedSnapshot;
import io.postlog.snapshot.SnapshotConnections;
import io.postlog.snapshot.SnapshotOptions;
import io.postlog.snapshot.SnapshotReader;
import io.postlog.snapshot.SnapshotResult;
import io.postlog.types.ValueDecoders;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;

/**
 * The initial snapshot's rate against the floor of one binary {@code COPY}, in the same
 * JVM and run: per run, {@code COPY (SELECT * FROM table) TO STDOUT (FORMAT binary)}
 * drained by pgjdbc's {@code CopyManager} into a null stream, then, at each parallelism,
 * a {@link SnapshotReader} of the same table under a fresh exported snapshot (temporary
 * slot) with a sink that only counts ({@code reader}), and a {@link ReplicationConsumer}
 * taking the initial snapshot of a new slot through a change handler that only counts
 * ({@code consumer}: timed from {@code start()} to the hand-over, set-up and slot
 * creation included; {@code consumer-rows}: from the listener's {@code snapshotStarted}
 * to its {@code snapshotCompleted}, the rows alone, as {@code copy-binary} is). Prints
 * one {@code RESULT} line per leg and run. Arguments:
 * {@code url= user= table=bench_rows rows= parallelism=1,2,4 runs=3
 * binary=true legs=reader,consumer}.
 */
public final class SnapshotLeg {

	private SnapshotLeg() {
	}

	public static void main(String[] args) throws Exception {
		String url = Tally.arg(args, "url", null);
		String user = Tally.arg(args, "user", "postgres");
		String table = Tally.arg(args, "table", "bench_rows");
		long rows = Long.parseLong(Tally.arg(args, "rows", null));
		int runs = Integer.parseInt(Tally.arg(args, "runs", "3"));
		boolean binary = Boolean.parseBoolean(Tally.arg(args, "binary", "true"));
		List<Integer> parallelisms = new ArrayList<>();
		for (String value : Tally.arg(args, "parallelism", "1,2,4").split(",")) {
			parallelisms.add(Integer.parseInt(value.trim()));
		}
		List<String> legs = List.of(Tally.arg(args, "legs", "reader,consumer").split(","));
		for (int run = 1; run <= runs; run++) {
			copy(url, user, table, rows, run);
			for (int parallelism : parallelisms) {
				if (legs.contains("reader")) {
					snapshot(url, user, table, rows, run, parallelism, binary);
				}
				if (legs.contains("consumer")) {
					consumer(url, user, table, rows, run, parallelism, binary);
				}
			}
		}
	}

	private static void copy(String url, String user, String table, long rows, int run) throws Exception {
		Properties properties = new Properties();
		properties.setProperty("user", user);
		try (Connection connection = DriverManager.getConnection(url, properties)) {
			long cpu = cpuNanos();
			long start = System.nanoTime();
			long copied = connection.unwrap(PGConnection.class)
				.getCopyAPI()
				.copyOut("COPY (SELECT * FROM " + table + ") TO STDOUT (FORMAT binary)",
						OutputStream.nullOutputStream());
			report("copy-binary", run, 1, copied, rows, System.nanoTime() - start, cpuNanos() - cpu);
		}
	}

	private static void snapshot(String url, String user, String table, long rows, int run, int parallelism,
			boolean binary) throws Exception {
		Properties properties = new Properties();
		PGProperty.USER.set(properties, user);
		PGProperty.REPLICATION.set(properties, "database");
		PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "10");
		PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
		long[] count = new long[1];
		try (ExportedSnapshot snapshot = ExportedSnapshot.create(DriverManager.getConnection(url, properties),
				"bench_snapshot_" + run + "_" + parallelism, true)) {
			long cpu = cpuNanos();
			long start = System.nanoTime();
			SnapshotResult result = new SnapshotReader(SnapshotConnections.of(url, user, null),
					ValueDecoders.standard())
				.read(snapshot, List.of(TableId.parse(table)),
						SnapshotOptions.defaults().withParallelism(parallelism).withBinary(binary),
						(change) -> count[0]++);
			long elapsed = System.nanoTime() - start;
			if (result.rows() != count[0]) {
				throw new IllegalStateException("Result says " + result.rows() + " rows, sink saw " + count[0]);
			}
			report(binary ? "reader" : "reader-text", run, parallelism, count[0], rows, elapsed, cpuNanos() - cpu);
		}
	}

	private static void consumer(String url, String user, String table, long rows, int run, int parallelism,
			boolean binary) throws Exception {
		long[] count = new long[1];
		long[] rowsStarted = new long[2];
		long[] rowsEnded = new long[2];
		CountDownLatch handedOver = new CountDownLatch(1);
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(url, user, null)
			.slotName("bench_consumer_" + run + "_" + parallelism)
			.slotLifecycle(SlotLifecycle.OWNED)
			.publicationName("bench_snapshot_pub")
			.tables(List.of(TableId.parse(table)))
			.binary(binary)
			.initialSnapshot(parallelism, SnapshotOptions.DEFAULT_CHUNK_SIZE)
			.listener(new ConsumerListener() {

				@Override
				public void snapshotStarted(Lsn consistentPoint, List<TableId> tables) {
					rowsStarted[0] = System.nanoTime();
					rowsStarted[1] = cpuNanos();
				}

				@Override
				public void snapshotCompleted(SnapshotProgress progress) {
					rowsEnded[0] = System.nanoTime();
					rowsEnded[1] = cpuNanos();
					handedOver.countDown();
				}

			})
			.changeHandler((Change change) -> count[0]++)
			.build();
		long cpu = cpuNanos();
		long start = System.nanoTime();
		consumer.start();
		if (!handedOver.await(30, TimeUnit.MINUTES)) {
			throw new IllegalStateException("The consumer's snapshot did not complete");
		}
		long elapsed = System.nanoTime() - start;
		long cpuUsed = cpuNanos() - cpu;
		consumer.stop();
		report(binary ? "consumer" : "consumer-text", run, parallelism, count[0], rows, elapsed, cpuUsed);
		// The rows alone, from the snapshot's export to the hand-over, as the COPY leg
		// times its rows alone.
		report(binary ? "consumer-rows" : "consumer-rows-text", run, parallelism, count[0], rows,
				rowsEnded[0] - rowsStarted[0], rowsEnded[1] - rowsStarted[1]);
	}

	private static void report(String leg, int run, int parallelism, long received, long expected, long nanos,
			long cpuNanos) {
		if (received != expected) {
			System.out.println("FAILED leg=" + leg + " run=" + run + " expected=" + expected + " received=" + received);
			System.exit(1);
		}
		double seconds = nanos / 1e9;
		System.out.println(String.format(Locale.ROOT,
				"RESULT leg=%s run=%d parallelism=%d rows=%d seconds=%.3f rows_per_s=%.0f client_cpu_s=%.2f", leg, run,
				parallelism, received, seconds, received / seconds, cpuNanos / 1e9));
	}

	private static long cpuNanos() {
		return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
	}

}
