package io.postlog.benchmarks.kafka;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.postlog.TableId;
import io.postlog.benchmarks.e2e.Tally;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.kafka.KafkaRelay;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The outbox's latency: a writer commits single-row outbox transactions (insert, then
 * delete, in one transaction) at a steady rate; the relay sends each to an embedded KRaft
 * broker in the same JVM; a {@code read_committed} consumer notes when each arrives. The
 * latency of an event is from the writer's {@code commit()} returning to the consumer's
 * {@code poll} returning it. Prints {@code OUTBOX events= rate= p50_ms= p99_ms= max_ms=}
 * and the same after the first {@code warmup} seconds. Arguments: {@code url= user=
 * rate=1000 seconds=60 warmup=10}.
 */
public final class OutboxLatencyRun {

	private OutboxLatencyRun() {
	}

	public static void main(String[] args) throws Exception {
		String url = Tally.arg(args, "url", null);
		String user = Tally.arg(args, "user", "postgres");
		int rate = Integer.parseInt(Tally.arg(args, "rate", "1000"));
		int seconds = Integer.parseInt(Tally.arg(args, "seconds", "60"));
		int warmup = Integer.parseInt(Tally.arg(args, "warmup", "10"));
		int events = rate * seconds;
		long[] committed = new long[events];
		long[] received = new long[events];
		AtomicLong count = new AtomicLong();
		try (Connection connection = DriverManager.getConnection(url, user, null);
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE TABLE IF NOT EXISTS bench_outbox (id bigserial PRIMARY KEY, "
					+ "aggregatetype text NOT NULL, aggregateid text NOT NULL, type text NOT NULL, payload jsonb)");
		}
		try (BenchBroker broker = BenchBroker.start()) {
			broker.topic("bench-events", 1);
			PGSimpleDataSource dataSource = new PGSimpleDataSource();
			dataSource.setUrl(url);
			dataSource.setUser(user);
			KafkaRelay relay = KafkaRelay.builder()
				.consumer(ReplicationConsumer.builder().jdbcUrl(url, user, null))
				.dataSource(dataSource)
				.slotName("outbox_latency")
				.publicationName("outbox_latency")
				.outboxTable(TableId.parse("bench_outbox"))
				.kafkaProperties(Map.of("bootstrap.servers", broker.servers()), Map.of(), Map.of(), Map.of())
				.build();
			relay.start();
			boolean[] done = new boolean[1];
			Thread reader = broker.read("bench-events", (record) -> {
				int seq = Integer.parseInt(new String(record.key(), StandardCharsets.UTF_8));
				received[seq] = System.nanoTime();
				count.incrementAndGet();
			}, () -> done[0]);
			Thread.sleep(2000);
			long intervalNanos = TimeUnit.SECONDS.toNanos(1) / rate;
			long maxBehind = 0;
			try (Connection connection = DriverManager.getConnection(url, user, null);
					PreparedStatement insert = connection.prepareStatement(
							"INSERT INTO bench_outbox (aggregatetype, aggregateid, type, payload) VALUES "
									+ "('bench-events', ?, 'Tick', jsonb_build_object('seq', ?::int)) RETURNING id");
					PreparedStatement delete = connection.prepareStatement("DELETE FROM bench_outbox WHERE id = ?")) {
				connection.setAutoCommit(false);
				long start = System.nanoTime();
				for (int seq = 0; seq < events; seq++) {
					long due = start + seq * intervalNanos;
					long now = System.nanoTime();
					if (due > now) {
						LockSupport.parkNanos(due - now);
					}
					else {
						maxBehind = Math.max(maxBehind, now - due);
					}
					insert.setString(1, Integer.toString(seq));
					insert.setInt(2, seq);
					long id;
					try (var rows = insert.executeQuery()) {
						rows.next();
						id = rows.getLong(1);
					}
					delete.setLong(1, id);
					delete.executeUpdate();
					connection.commit();
					committed[seq] = System.nanoTime();
				}
				double achieved = events / ((System.nanoTime() - start) / 1e9);
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
				while (count.get() < events && System.nanoTime() < deadline) {
					Thread.sleep(50);
				}
				done[0] = true;
				reader.join(5000);
				relay.stop();
				if (count.get() != events) {
					System.out.println("FAILED outbox events=" + events + " received=" + count.get());
					System.exit(1);
				}
				long[] micros = new long[events];
				for (int i = 0; i < events; i++) {
					micros[i] = Math.max(0, received[i] - committed[i]) / 1000;
				}
				long[] steady = Arrays.copyOfRange(micros, Math.min(events - 1, rate * warmup), events);
				System.out.println(String.format(Locale.ROOT,
						"OUTBOX events=%d rate=%.0f max_behind_ms=%.1f%s%s records=%d", events, achieved,
						maxBehind / 1e6, stats("", micros), stats("steady_", steady), relay.progress().records()));
			}
		}
		System.exit(0);
	}

	private static String stats(String prefix, long[] micros) {
		long[] sorted = micros.clone();
		Arrays.sort(sorted);
		return String.format(Locale.ROOT, " %sp50_ms=%.2f %sp99_ms=%.2f %smax_ms=%.2f", prefix,
				sorted[(int) (sorted.length * 0.50)] / 1e3, prefix,
				sorted[Math.min(sorted.length - 1, (int) (sorted.length * 0.99))] / 1e3, prefix,
				sorted[sorted.length - 1] / 1e3);
	}


}
