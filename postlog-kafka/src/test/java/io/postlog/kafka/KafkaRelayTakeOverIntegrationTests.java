package io.postlog.kafka;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.postlog.TableId;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.ReconnectPolicy;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.RetryPolicy;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two relays of one slot and transactional id, as two replicas of an application: one
 * relays, the other waits in standby; when the first loses its connection the second
 * takes over and fences the first's producer; when the second stops, the first takes over
 * again, is told it was fenced, and relays on with a new producer. Every change reaches a
 * {@code read_committed} consumer once.
 */
@PostgresTest
class KafkaRelayTakeOverIntegrationTests {

	@RegisterExtension
	static final KafkaTestBroker broker = KafkaTestBroker.perClass();

	@Test
	void relayFencedByAReplicaThatTookOverWaitsAndLaterRelaysOnWithoutDuplicates(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE takeover (k bigint PRIMARY KEY, v int NOT NULL)");
		// The first relay comes back slowly after a lost connection, the second quickly,
		// so the second takes the slot over.
		KafkaRelay first = relay(database, Duration.ofSeconds(3));
		KafkaRelay second = relay(database, Duration.ofMillis(100));
		AtomicBoolean stop = new AtomicBoolean();
		AtomicBoolean paused = new AtomicBoolean();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		long[] written = new long[1];

		Thread writer = new Thread(() -> {
			try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
				while (!stop.get()) {
					if (paused.get()) {
						Thread.sleep(5);
						continue;
					}
					statement.execute("INSERT INTO takeover SELECT g, 1 FROM generate_series(" + (written[0] + 1) + ", "
							+ (written[0] + 10) + ") g");
					written[0] += 10;
					Thread.sleep(5);
				}
			}
			catch (Throwable ex) {
				failure.set(ex);
			}
		}, "takeover-writer");
		first.start();
		writer.start();
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> first.progress().transactions() > 0);
			second.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> second.state() == ConsumerState.STANDBY);
			// The first relay is idle when it loses the slot, so its producer is still
			// open, only stale, once the second relay's producer started.
			paused.set(true);
			Thread.sleep(100);
			io.postlog.Lsn caughtUp = KafkaRelayIntegrationTests.currentLsnOf(database);
			await().atMost(Duration.ofSeconds(60)).until(() -> !first.ackedLsn().isBefore(caughtUp));
			terminateWalsender(database);
			await().atMost(Duration.ofSeconds(60)).until(() -> second.state() == ConsumerState.RUNNING);
			paused.set(false);
			await().atMost(Duration.ofSeconds(60)).until(() -> second.progress().transactions() > 0);
			assertThat(first.state()).isIn(ConsumerState.STANDBY, ConsumerState.RETRYING);
			second.stop();
			await().atMost(Duration.ofSeconds(60)).until(() -> first.progress().fences() > 0);
			long relayedBefore = first.progress().records();
			await().atMost(Duration.ofSeconds(60)).until(() -> first.progress().records() > relayedBefore);
		}
		finally {
			stop.set(true);
			writer.join(10_000);
		}
		assertThat(failure.get()).isNull();
		io.postlog.Lsn end = KafkaRelayIntegrationTests.currentLsnOf(database);
		await().atMost(Duration.ofSeconds(60)).until(() -> !first.ackedLsn().isBefore(end));
		assertThat(first.state()).isEqualTo(ConsumerState.RUNNING);
		first.stop();
		List<ConsumerRecord<byte[], byte[]>> records = broker.readAll("public.takeover", written[0],
				Duration.ofSeconds(60));
		Set<String> ids = new HashSet<>();
		Set<Long> keys = new HashSet<>();
		JsonMapper json = JsonMapper.builder().build();
		for (ConsumerRecord<byte[], byte[]> record : records) {
			var value = json.readTree(record.value());
			assertThat(ids.add(value.get("id").stringValue())).as("change seen once").isTrue();
			keys.add(value.get("after").get("k").longValue());
		}
		assertThat(keys).hasSize((int) written[0]);
		assertThat(records).hasSize((int) written[0]);
		System.out.println("[measure] take-over test: " + written[0] + " changes, first relay "
				+ first.progress().records() + " records after restarting and fenced " + first.progress().fences()
				+ " time(s), second " + second.progress().records() + " records");
	}

	private static void terminateWalsender(PostgresDatabase database) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT pg_terminate_backend(active_pid) "
						+ "FROM pg_replication_slots WHERE slot_name = 'takeover' AND active_pid IS NOT NULL")) {
			assertThat(rows.next()).isTrue();
		}
	}

	private static KafkaRelay relay(PostgresDatabase database, Duration backOff) {
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setUrl(database.jdbcUrl());
		dataSource.setUser(database.username());
		return KafkaRelay.builder()
			.consumer(ReplicationConsumer.builder()
				.jdbcUrl(database.jdbcUrl(), database.username(), null)
				.statusInterval(Duration.ofSeconds(1))
				.retryPolicy(new RetryPolicy(backOff, 1, backOff, -1))
				.reconnectPolicy(new ReconnectPolicy(backOff, 1, backOff)))
			.dataSource(dataSource)
			.slotName("takeover")
			.publicationName("takeover")
			.tables(List.of(TableId.parse("takeover")))
			.kafkaProperties(broker.clientProperties(), Map.of(), Map.of(), Map.of())
			.build();
	}

}
