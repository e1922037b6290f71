package io.postlog.benchmarks.e2e;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.postlog.Lsn;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.Subscription;

/**
 * The read-your-writes benchmark: one writer commits single-row transactions one after
 * another, reads {@code pg_current_wal_insert_lsn()} after each commit and waits in
 * {@link ReplicationConsumer#awaitDelivered} until a listener that sleeps
 * {@code sleepMicros} per change has finished it. Prints
 * {@code FENCE writes= sleepMicros= await_p50_ms= await_p99_ms= listener_p50_ms= listener_p99_ms= misses=}:
 * the await's time from the commit's return to the await's return against the listener's
 * own time per change. Arguments: {@code url= user= writes=2000 sleepMicros=1000}.
 */
public final class FenceLatencyRun {

	private FenceLatencyRun() {
	}

	public static void main(String[] args) throws Exception {
		String url = Tally.arg(args, "url", null);
		String user = Tally.arg(args, "user", "postgres");
		int writes = Integer.parseInt(Tally.arg(args, "writes", "2000"));
		long sleepMicros = Long.parseLong(Tally.arg(args, "sleepMicros", "1000"));
		long[] listenerNanos = new long[writes + 1];
		long[] seen = new long[writes + 1];
		try (Connection connection = DriverManager.getConnection(url, user, null);
				Statement statement = connection.createStatement()) {
			statement.execute("DROP TABLE IF EXISTS fence_rows");
			statement.execute("CREATE TABLE fence_rows (id int PRIMARY KEY)");
			statement.execute("DROP PUBLICATION IF EXISTS fence_pub");
			statement.execute("CREATE PUBLICATION fence_pub FOR TABLE fence_rows");
		}
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(url, user, null)
			.slotName("fence_bench")
			.slotLifecycle(SlotLifecycle.CREATE_IF_MISSING)
			.publicationName("fence_pub")
			.publicationMode(PublicationMode.EXISTING)
			.subscribe(Subscription.onChange("fence", (change) -> {
				long start = System.nanoTime();
				int id = change.after().get("id", Integer.class);
				TimeUnit.MICROSECONDS.sleep(sleepMicros);
				listenerNanos[id] = System.nanoTime() - start;
				seen[id] = 1;
			}))
			.build();
		consumer.start();
		long[] awaitNanos = new long[writes];
		int misses = 0;
		try (Connection connection = DriverManager.getConnection(url, user, null);
				PreparedStatement insert = connection.prepareStatement("INSERT INTO fence_rows VALUES (?)");
				Statement statement = connection.createStatement()) {
			for (int id = 1; id <= writes; id++) {
				insert.setInt(1, id);
				insert.executeUpdate();
				long start = System.nanoTime();
				Lsn lsn;
				try (ResultSet result = statement.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
					result.next();
					lsn = Lsn.parse(result.getString(1));
				}
				if (!consumer.awaitDelivered(lsn, Duration.ofSeconds(30)) || seen[id] == 0) {
					misses++;
				}
				awaitNanos[id - 1] = System.nanoTime() - start;
			}
		}
		finally {
			consumer.stop();
			try (Connection connection = DriverManager.getConnection(url, user, null);
					Statement statement = connection.createStatement()) {
				statement.execute("SELECT pg_drop_replication_slot('fence_bench')");
			}
		}
		long[] listener = Arrays.copyOfRange(listenerNanos, 1, writes + 1);
		System.out.println(String.format(Locale.ROOT,
				"FENCE writes=%d sleepMicros=%d await_p50_ms=%.3f await_p99_ms=%.3f listener_p50_ms=%.3f "
						+ "listener_p99_ms=%.3f misses=%d",
				writes, sleepMicros, percentile(awaitNanos, 50), percentile(awaitNanos, 99), percentile(listener, 50),
				percentile(listener, 99), misses));
		if (misses > 0) {
			System.exit(1);
		}
	}

	private static double percentile(long[] nanos, int percent) {
		long[] sorted = nanos.clone();
		Arrays.sort(sorted);
		int index = Math.min(sorted.length - 1, (int) Math.ceil(percent / 100.0 * sorted.length) - 1);
		return sorted[Math.max(0, index)] / 1e6;
	}

}
