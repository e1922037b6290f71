package io.postlog.kafka;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.consumer.ConsumerListener;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.RetryPolicy;
import io.postlog.kafka.health.PostlogKafkaHealthIndicator;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.TcpProxy;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The broker becomes unreachable while changes are written: a real KRaft broker
 * advertises a {@link TcpProxy}, so every client connection, the relay's and the broker's
 * own, passes through it, and the proxy cuts them and refuses new ones. The relay retries
 * through the consumer's retry policy, health is DOWN meanwhile, and once the broker is
 * reachable again every change arrives exactly once, in order per key, for a
 * {@code read_committed} consumer.
 */
@PostgresTest
class KafkaRelayBrokerOutageIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	@Test
	void relayRetriesThroughAnOutageAndEveryChangeArrivesOnce(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE accounts (k int PRIMARY KEY, v int NOT NULL)");
		// The broker's port is known once it runs: the proxy points there then.
		try (TcpProxy proxy = TcpProxy.start("localhost", 9);
				KafkaTestBroker broker = KafkaTestBroker.start(new EmbeddedKafkaKraftBroker(1, 1),
						Map.of("advertised.listeners", "EXTERNAL://localhost:" + proxy.port()))) {
			proxy.retarget("localhost", broker.boundPort("EXTERNAL"));
			broker.createTopic("public.accounts", 3);
			AtomicInteger retries = new AtomicInteger();
			PGSimpleDataSource dataSource = new PGSimpleDataSource();
			dataSource.setUrl(database.jdbcUrl());
			dataSource.setUser(database.username());
			// Short client timeouts, so that the outage is noticed within seconds.
			Map<String, Object> producer = Map.of("request.timeout.ms", 1500, "delivery.timeout.ms", 3000, "linger.ms",
					5);
			KafkaRelayBuilder builder = KafkaRelay.builder()
				.consumer(ReplicationConsumer.builder()
					.jdbcUrl(database.jdbcUrl(), database.username(), null)
					.statusInterval(Duration.ofSeconds(1))
					.retryPolicy(new RetryPolicy(Duration.ofMillis(200), 2, Duration.ofSeconds(1), -1)))
				.dataSource(dataSource)
				.slotName("relay_outage")
				.publicationName("relay_outage")
				.tables(List.of(TableId.parse("accounts")))
				.initTimeout(Duration.ofSeconds(2))
				.kafkaTimeout(Duration.ofSeconds(3))
				.kafkaProperties(Map.of("bootstrap.servers", "localhost:" + proxy.port()), producer,
						Map.of("default.api.timeout.ms", 3000, "request.timeout.ms", 1500), Map.of())
				.listener(new ConsumerListener() {
					@Override
					public void retrying(int attempt, Duration backOff, Throwable cause) {
						retries.incrementAndGet();
					}
				});
			PostlogKafkaRelay lifecycle = new PostlogKafkaRelay(builder::build, true);
			PostlogKafkaHealthIndicator health = new PostlogKafkaHealthIndicator(lifecycle,
					new PostlogSlotMonitor(dataSource, "relay_outage", "relay_outage"));
			lifecycle.start();
			try {
				KafkaRelay relay = lifecycle.relay();
				write(database, 0, 200);
				await().atMost(Duration.ofSeconds(60)).until(() -> relay.progress().records() == 200);
				assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);

				proxy.refuseNewConnections(true);
				proxy.cutConnections();
				write(database, 200, 600);
				await().atMost(Duration.ofSeconds(60))
					.until(() -> retries.get() > 0 && relay.state() == ConsumerState.RETRYING);
				Health during = health.health(true);
				assertThat(during.getStatus()).isEqualTo(Status.DOWN);
				assertThat(during.getDetails()).containsEntry("state", "RETRYING").containsKey("lastError");
				assertThat(relay.progress().records()).isEqualTo(200);
				write(database, 600, 800);

				proxy.refuseNewConnections(false);
				write(database, 800, 1000);
				Lsn written = KafkaRelayIntegrationTests.currentLsnOf(database);
				await().atMost(Duration.ofSeconds(120))
					.until(() -> relay.state() == ConsumerState.RUNNING && !relay.ackedLsn().isBefore(written));
				assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
			}
			finally {
				lifecycle.stop();
			}
			List<ConsumerRecord<byte[], byte[]>> records = broker.readAll("public.accounts", 1000,
					Duration.ofSeconds(60));
			Set<String> ids = new HashSet<>();
			Map<Integer, Integer> versions = new HashMap<>();
			for (ConsumerRecord<byte[], byte[]> record : records) {
				JsonNode value = json.readTree(record.value());
				assertThat(ids.add(value.get("id").stringValue())).as("change %s once", value.get("id")).isTrue();
				int key = value.get("after").get("k").intValue();
				int version = value.get("after").get("v").intValue();
				Integer previous = versions.put(key, version);
				assertThat(version).as("version of key %s", key).isEqualTo((previous != null) ? previous + 1 : 1);
			}
			assertThat(records).hasSize(1000);
			assertThat(versions).hasSize(200);
			assertThat(versions.values()).containsOnly(5);
			assertThat(retries.get()).isPositive();
			// The relay took turns between its two producers.
			assertThat(broker.transactionalIds()).contains("postlog-relay_outage", "postlog-relay_outage-1");
		}
	}

	/**
	 * Writes {@code to - from} changes in transactions of 20: inserts of keys 1 to 200
	 * first, then updates that raise each key's version by one per round.
	 */
	private static void write(PostgresDatabase database, int from, int to) throws Exception {
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			for (int change = from; change < to; change += 20) {
				int first = change % 200 + 1;
				if (change < 200) {
					statement.execute("INSERT INTO accounts SELECT g, 1 FROM generate_series(" + first + ", "
							+ (first + 19) + ") g");
				}
				else {
					statement
						.execute("UPDATE accounts SET v = v + 1 WHERE k BETWEEN " + first + " AND " + (first + 19));
				}
				connection.commit();
			}
		}
	}

}
