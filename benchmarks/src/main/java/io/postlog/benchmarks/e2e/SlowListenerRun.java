package io.postlog.benchmarks.e2e;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.Change;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.Subscription;

/**
 * The slow-listener benchmark: a listener that takes 2 ms per change (an HTTP call, an
 * index write) over 100,000 changes on 1,000 keys, once on one lane and once on eight,
 * from two slots over the same WAL. Each run checks that every key's versions arrive in
 * order and prints {@code SLOW lanes=N changes= seconds= rate= order=ok}. Arguments:
 * {@code url= user= changes=100000 keys=1000 sleepMicros=2000 lanes=1,8}.
 */
public final class SlowListenerRun {

	private SlowListenerRun() {
	}

	public static void main(String[] args) throws Exception {
		String url = Tally.arg(args, "url", null);
		String user = Tally.arg(args, "user", "postgres");
		int changes = Integer.parseInt(Tally.arg(args, "changes", "100000"));
		int keys = Integer.parseInt(Tally.arg(args, "keys", "1000"));
		long sleepMicros = Long.parseLong(Tally.arg(args, "sleepMicros", "2000"));
		String[] laneCounts = Tally.arg(args, "lanes", "1,8").split(",");
		try (Connection connection = DriverManager.getConnection(url, user, null);
				Statement statement = connection.createStatement()) {
			statement.execute("DROP TABLE IF EXISTS slow_rows");
			statement.execute("CREATE TABLE slow_rows (k int PRIMARY KEY, v int NOT NULL)");
			statement.execute("DROP PUBLICATION IF EXISTS slow_pub");
			statement.execute("CREATE PUBLICATION slow_pub FOR TABLE slow_rows");
			for (String lanes : laneCounts) {
				statement.execute("SELECT pg_create_logical_replication_slot('slow_" + lanes + "', 'pgoutput')");
			}
			write(connection, changes, keys);
		}
		for (String lanes : laneCounts) {
			run(url, user, Integer.parseInt(lanes), changes, sleepMicros);
		}
		try (Connection connection = DriverManager.getConnection(url, user, null);
				Statement statement = connection.createStatement()) {
			for (String lanes : laneCounts) {
				statement.execute("SELECT pg_drop_replication_slot('slow_" + lanes + "')");
			}
		}
	}

	/** Inserts every key, then updates random keys, 100 changes per transaction. */
	private static void write(Connection connection, int changes, int keys) throws Exception {
		connection.setAutoCommit(false);
		Random random = new Random(7);
		try (PreparedStatement insert = connection.prepareStatement("INSERT INTO slow_rows VALUES (?, 0)");
				PreparedStatement update = connection.prepareStatement("UPDATE slow_rows SET v = v + 1 WHERE k = ?")) {
			for (int i = 0; i < changes; i++) {
				if (i < keys) {
					insert.setInt(1, i);
					insert.executeUpdate();
				}
				else {
					update.setInt(1, random.nextInt(keys));
					update.executeUpdate();
				}
				if (i % 100 == 99) {
					connection.commit();
				}
			}
			connection.commit();
		}
	}

	private static void run(String url, String user, int lanes, int changes, long sleepMicros) throws Exception {
		ConcurrentHashMap<Integer, Integer> versions = new ConcurrentHashMap<>();
		AtomicLong received = new AtomicLong();
		AtomicLong outOfOrder = new AtomicLong();
		AtomicLong firstNanos = new AtomicLong();
		CountDownLatch done = new CountDownLatch(1);
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(url, user, null)
			.slotName("slow_" + lanes)
			.slotLifecycle(SlotLifecycle.EXISTING)
			.publicationName("slow_pub")
			.publicationMode(PublicationMode.EXISTING)
			.subscribe(Subscription.onChange("slow", (Change change) -> {
				firstNanos.compareAndSet(0, System.nanoTime());
				int key = change.after().get("k", Integer.class);
				int version = change.after().get("v", Integer.class);
				Integer previous = versions.put(key, version);
				if (previous != null && previous >= version) {
					outOfOrder.incrementAndGet();
				}
				TimeUnit.MICROSECONDS.sleep(sleepMicros);
				if (received.incrementAndGet() == changes) {
					done.countDown();
				}
			}).withConcurrency(lanes))
			.build();
		consumer.start();
		boolean finished = done.await(30, TimeUnit.MINUTES);
		long nanos = System.nanoTime() - firstNanos.get();
		consumer.stop();
		double seconds = nanos / 1e9;
		System.out
			.println(String.format(Locale.ROOT, "SLOW lanes=%d changes=%d seconds=%.2f rate=%.1f order=%s finished=%s",
					lanes, received.get(), seconds, received.get() / seconds,
					(outOfOrder.get() == 0) ? "ok" : outOfOrder.get() + "-out-of-order", finished));
		if (!finished || outOfOrder.get() > 0) {
			System.exit(1);
		}
	}

}
