package io.postlog.benchmarks.e2e;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The writer's side of {@code postlog.tracing.propagate}: single-row transactions paced
 * at {@code rate} a second, in one-second slices that alternate between propagation off
 * (begin, insert, commit) and on (begin, the {@code postlog.trace} message exactly as
 * {@code PostlogTracePropagation} emits it with a fixed W3C {@code traceparent}, insert,
 * commit), side by side in one run on one connection, then each unpaced for the same
 * time. Prints one {@code TRACE propagate=off|on paced_tx_s= paced_p50_ms= paced_p99_ms=
 * max_tx_s=} line per mode; the on/off ratio of {@code max_tx_s} is the writer's cost.
 * Measures the SQL the bean runs, not the Spring transaction manager around it.
 * Arguments: {@code url= user= rate=1000 seconds=20}.
 */
public final class TracePropagationWriterRun {

	private static final String EMIT = "SELECT pg_logical_emit_message(true, 'postlog.trace', ? || 'xid: ' || "
			+ "(txid_current() % 4294967296)::text)";

	private static final String TRACEPARENT = "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\n";

	private TracePropagationWriterRun() {
	}

	public static void main(String[] args) throws Exception {
		String url = Tally.arg(args, "url", null);
		String user = Tally.arg(args, "user", "postgres");
		int rate = Integer.parseInt(Tally.arg(args, "rate", "1000"));
		int seconds = Integer.parseInt(Tally.arg(args, "seconds", "20"));
		try (Connection connection = DriverManager.getConnection(url, user, null);
				Statement statement = connection.createStatement()) {
			statement.execute("DROP TABLE IF EXISTS trace_rows");
			statement.execute("CREATE TABLE trace_rows (id bigserial PRIMARY KEY, v int NOT NULL)");
			connection.setAutoCommit(false);
			try (PreparedStatement insert = connection.prepareStatement("INSERT INTO trace_rows (v) VALUES (1)");
					PreparedStatement emit = connection.prepareStatement(EMIT)) {
				emit.setString(1, TRACEPARENT);
				long[][] latencies = { new long[seconds * rate], new long[seconds * rate] };
				int[] counts = new int[2];
				long[] slotNanos = new long[2];
				for (int slice = 0; slice < seconds * 2; slice++) {
					int mode = slice % 2;
					long start = System.nanoTime();
					for (int i = 0; i < rate; i++) {
						long due = start + i * TimeUnit.SECONDS.toNanos(1) / rate;
						while (System.nanoTime() < due) {
							Thread.onSpinWait();
						}
						long began = System.nanoTime();
						write(connection, insert, (mode == 1) ? emit : null);
						latencies[mode][counts[mode]++] = System.nanoTime() - began;
					}
					slotNanos[mode] += System.nanoTime() - start;
				}
				long[] max = new long[2];
				for (int mode = 0; mode < 2; mode++) {
					long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
					while (System.nanoTime() < end) {
						write(connection, insert, (mode == 1) ? emit : null);
						max[mode]++;
					}
				}
				for (int mode = 0; mode < 2; mode++) {
					long[] sorted = Arrays.copyOf(latencies[mode], counts[mode]);
					Arrays.sort(sorted);
					System.out.println(String.format(Locale.ROOT,
							"TRACE propagate=%s paced_tx_s=%.1f paced_p50_ms=%.3f paced_p99_ms=%.3f max_tx_s=%.1f",
							(mode == 1) ? "on" : "off", counts[mode] / (slotNanos[mode] / 1e9),
							sorted[sorted.length / 2] / 1e6, sorted[(int) (sorted.length * 0.99)] / 1e6,
							max[mode] / (double) seconds));
				}
			}
		}
	}

	private static void write(Connection connection, PreparedStatement insert, PreparedStatement emit)
			throws Exception {
		if (emit != null) {
			emit.executeQuery().close();
		}
		insert.executeUpdate();
		connection.commit();
	}

}
