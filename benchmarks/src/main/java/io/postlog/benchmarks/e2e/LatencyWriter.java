package io.postlog.benchmarks.e2e;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The latency run's writer: single-row insert transactions into {@code bench_rows} at a
 * steady rate, spread over several connections, each paced to its share of the rate.
 * Writes exactly {@code rate * seconds} transactions. Arguments: {@code url= user=
 * rate=5000 seconds=60 connections=4 firstId=}.
 */
public final class LatencyWriter {

	private LatencyWriter() {
	}

	public static void main(String[] args) throws Exception {
		String url = Tally.arg(args, "url", null);
		String user = Tally.arg(args, "user", "postgres");
		int rate = Integer.parseInt(Tally.arg(args, "rate", "5000"));
		int seconds = Integer.parseInt(Tally.arg(args, "seconds", "60"));
		int connections = Integer.parseInt(Tally.arg(args, "connections", "4"));
		long firstId = Long.parseLong(Tally.arg(args, "firstId", "100000000"));
		long total = (long) rate * seconds;
		AtomicLong maxBehindNanos = new AtomicLong();
		long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
		List<Thread> threads = new ArrayList<>();
		List<Throwable> failures = new ArrayList<>();
		for (int t = 0; t < connections; t++) {
			int lane = t;
			Thread thread = new Thread(() -> {
				try (Connection connection = DriverManager.getConnection(url, user, null);
						PreparedStatement insert = connection
							.prepareStatement("INSERT INTO bench_rows VALUES (?, ?, ?, now(), ?, ?::jsonb)")) {
					connection.setAutoCommit(true);
					// Each lane writes every connections-th transaction of the global
					// schedule.
					for (long i = lane; i < total; i += connections) {
						long due = start + i * 1_000_000_000L / rate;
						long wait = due - System.nanoTime();
						if (wait > 0) {
							LockSupport.parkNanos(wait);
						}
						else {
							maxBehindNanos.accumulateAndGet(-wait, Math::max);
						}
						long id = firstId + i;
						insert.setLong(1, id);
						insert.setInt(2, (int) (id % 1000));
						insert.setString(3, "latency row " + id);
						insert.setBigDecimal(4, java.math.BigDecimal.valueOf(id % 100000, 2));
						insert.setString(5, "{\"qty\": " + (id % 10) + ", \"sku\": \"L-" + id + "\"}");
						insert.executeUpdate();
					}
				}
				catch (Throwable ex) {
					synchronized (failures) {
						failures.add(ex);
					}
				}
			}, "writer-" + t);
			threads.add(thread);
			thread.start();
		}
		for (Thread thread : threads) {
			thread.join();
		}
		double elapsed = (System.nanoTime() - start) / 1e9;
		if (!failures.isEmpty()) {
			failures.get(0).printStackTrace();
			System.exit(1);
		}
		System.out
			.println(String.format(Locale.ROOT, "WRITER transactions=%d seconds=%.2f rate=%.0f max_behind_ms=%.1f",
					total, elapsed, total / elapsed, maxBehindNanos.get() / 1e6));
	}

}
