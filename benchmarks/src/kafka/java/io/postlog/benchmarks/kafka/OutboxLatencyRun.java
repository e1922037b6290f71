package io.postlog.benchmarks.kafka;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.benchmarks.e2e.Tally;
import io.postlog.consumer.ConsumerListener;
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
 * rate=1000 seconds=60 warmup=10 slot=outbox_latency} (the slot's and the publication's
 * name: a run of its own on a server that kept an earlier run's).
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
		String slot = Tally.arg(args, "slot", "outbox_latency");
		int events = rate * seconds;
		long[] committed = new long[events];
		long[] received = new long[events];
		// Stages, on the relay's delivery thread: the change handed to the relay, and the
		// Kafka commit that covered it returned.
		long[] delivered = new long[events];
		long[] kafkaCommitted = new long[events];
		// Wall clock, in microseconds: the server's commit timestamp of each event's
		// transaction, and when the relay was handed the change, which splits the first
		// stage into the server's part (WAL flush, walsender, decoding, the socket) and the
		// relay's.
		long[] serverCommitMicros = new long[events];
		long[] deliveredMicros = new long[events];
		int[] lastDelivered = { -1 };
		int[] lastCommitted = { -1 };
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
				.slotName(slot)
				.publicationName(slot)
				.outboxTable(TableId.parse("bench_outbox"))
				.kafkaProperties(Map.of("bootstrap.servers", broker.servers()), Map.of(), Map.of(), Map.of())
				.listener(new ConsumerListener() {
					@Override
					public void changeDelivered(Change change, Duration handlerTime) {
						if (change.operation() == Operation.INSERT && change.after() != null) {
							int seq = Integer.parseInt(String.valueOf(change.after().get("aggregateid")));
							delivered[seq] = System.nanoTime();
							deliveredMicros[seq] = micros(Instant.now());
							serverCommitMicros[seq] = micros(change.commitTime());
							lastDelivered[0] = seq;
						}
					}
				})
				.commitListener((records, commitTime, kafkaCommit) -> {
					long now = System.nanoTime();
					for (int seq = lastCommitted[0] + 1; seq <= lastDelivered[0]; seq++) {
						kafkaCommitted[seq] = now;
					}
					lastCommitted[0] = Math.max(lastCommitted[0], lastDelivered[0]);
				})
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
				int from = Math.min(events - 1, rate * warmup);
				long[] steady = Arrays.copyOfRange(micros, from, events);
				System.out.println(String.format(Locale.ROOT,
						"OUTBOX events=%d rate=%.0f max_behind_ms=%.1f%s%s records=%d kafka_transactions=%d", events,
						achieved, maxBehind / 1e6, stats("", micros), stats("steady_", steady),
						relay.progress().records(), relay.progress().transactions()));
				System.out.println("OUTBOX_STAGES" + stage("to_relay_", committed, delivered, from)
						+ stage("to_kafka_commit_", delivered, kafkaCommitted, from)
						+ stage("to_consumer_", kafkaCommitted, received, from)
						+ stage("server_commit_to_relay_", serverCommitMicros, deliveredMicros, from, 1));
			}
		}
		System.exit(0);
	}

	/** The steady-state percentiles of one stage, from {@code start} to {@code end}. */
	private static String stage(String prefix, long[] start, long[] end, int from) {
		return stage(prefix, start, end, from, 1000);
	}

	private static String stage(String prefix, long[] start, long[] end, int from, long perMicro) {
		long[] micros = new long[start.length - from];
		for (int i = from; i < start.length; i++) {
			micros[i - from] = Math.max(0, end[i] - start[i]) / perMicro;
		}
		return stats(prefix, micros);
	}

	private static long micros(Instant instant) {
		return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1000;
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
