package io.postlog.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.postlog.TableId;
import io.postlog.consumer.ConsumerListener;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.RetryPolicy;
import io.postlog.kafka.health.PostlogKafkaHealthIndicator;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The relay on a single real KRaft broker whose transaction state log needs more replicas
 * than the cluster has brokers: no transaction coordinator ever answers. The relay is
 * never {@code RUNNING}; within the init timeout (plus the diagnosis) it is
 * {@code RETRYING}, health is DOWN, and the cause names the replication factor and the
 * fix. The same relay on a broker whose log needs one replica relays.
 */
@PostgresTest
class KafkaRelayCoordinatorIntegrationTests {

	private static final Logger logger = LoggerFactory.getLogger(KafkaRelayCoordinatorIntegrationTests.class);

	private static final Duration INIT_TIMEOUT = Duration.ofSeconds(4);

	@Test
	void transactionLogNeedingThreeReplicasOnOneBrokerGivesRetryingHealthDownAndTheCause(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE items_rf3 (k int PRIMARY KEY, v int NOT NULL)");
		try (KafkaTestBroker broker = KafkaTestBroker.start(new EmbeddedKafkaKraftBroker(1, 1),
				Map.of("transaction.state.log.replication.factor", "3", "transaction.state.log.min.isr", "2"))) {
			PGSimpleDataSource dataSource = dataSource(database);
			AtomicInteger retries = new AtomicInteger();
			PostlogKafkaRelay lifecycle = new PostlogKafkaRelay(
					() -> relay(database, dataSource, broker, "relay_rf3", "items_rf3", retries), true);
			PostlogKafkaHealthIndicator health = new PostlogKafkaHealthIndicator(lifecycle,
					new PostlogSlotMonitor(dataSource, "relay_rf3", "relay_rf3"));
			Set<ConsumerState> seen = ConcurrentHashMap.newKeySet();
			long started = System.nanoTime();
			lifecycle.start();
			long running = System.nanoTime();
			try {
				KafkaRelay relay = lifecycle.relay();
				database.execute("INSERT INTO items_rf3 VALUES (1, 1)");
				await().atMost(INIT_TIMEOUT.plus(CoordinatorDiagnosis.MAX_TIME).plusSeconds(5))
					.pollInterval(Duration.ofMillis(50))
					.until(() -> {
						ConsumerState state = relay.state();
						seen.add(state);
						return state == ConsumerState.RETRYING;
					});
				long now = System.nanoTime();
				// On the first attempt's timeout, not a later one.
				assertThat(retries.get()).isEqualTo(1);
				logger.info("RETRYING {} ms after start() was called, {} ms after it returned; init timeout {} ms",
						TimeUnit.NANOSECONDS.toMillis(now - started), TimeUnit.NANOSECONDS.toMillis(now - running),
						INIT_TIMEOUT.toMillis());
				Health down = health.health(true);
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails()).containsEntry("state", "RETRYING").containsEntry("records", 0L);
				assertThat((String) down.getDetails().get("lastError"))
					.contains("found no transaction coordinator within postlog.kafka.init-timeout (4000 ms)")
					.contains("transaction.state.log.replication.factor=3")
					.contains("the cluster has 1 broker")
					.contains("set transaction.state.log.replication.factor and transaction.state.log.min.isr to "
							+ "at most 1");
				assertThat(relay.lastFailure()).isInstanceOf(KafkaCoordinatorUnavailableException.class);
				// A second attempt, to the end of another init timeout: still retrying,
				// never
				// RUNNING, nothing relayed.
				long until = System.nanoTime() + INIT_TIMEOUT.plusSeconds(2).toNanos();
				await().atMost(INIT_TIMEOUT.plusSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> {
					seen.add(relay.state());
					return System.nanoTime() > until;
				});
				assertThat(seen).doesNotContain(ConsumerState.RUNNING, ConsumerState.FAILED);
				assertThat(relay.progress().records()).isZero();
				assertThat(health.health(true).getStatus()).isEqualTo(Status.DOWN);
			}
			finally {
				lifecycle.stop();
			}
		}
	}

	@Test
	void transactionLogNeedingOneReplicaOnOneBrokerRelays(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE items_rf1 (k int PRIMARY KEY, v int NOT NULL)");
		try (KafkaTestBroker broker = KafkaTestBroker.start(new EmbeddedKafkaKraftBroker(1, 1),
				Map.of("transaction.state.log.replication.factor", "1", "transaction.state.log.min.isr", "1"))) {
			PGSimpleDataSource dataSource = dataSource(database);
			PostlogKafkaRelay lifecycle = new PostlogKafkaRelay(
					() -> relay(database, dataSource, broker, "relay_rf1", "items_rf1", new AtomicInteger()), true);
			PostlogKafkaHealthIndicator health = new PostlogKafkaHealthIndicator(lifecycle,
					new PostlogSlotMonitor(dataSource, "relay_rf1", "relay_rf1"));
			lifecycle.start();
			try {
				KafkaRelay relay = lifecycle.relay();
				database.execute("INSERT INTO items_rf1 SELECT g, 1 FROM generate_series(1, 10) g");
				await().atMost(Duration.ofSeconds(30)).until(() -> relay.progress().records() == 10);
				assertThat(relay.state()).isEqualTo(ConsumerState.RUNNING);
				Health up = health.health(true);
				assertThat(up.getStatus()).isEqualTo(Status.UP);
				assertThat(up.getDetails()).doesNotContainKey("lastError");
			}
			finally {
				lifecycle.stop();
			}
			List<ConsumerRecord<byte[], byte[]>> records = broker.readAll("public.items_rf1", 10,
					Duration.ofSeconds(30));
			assertThat(records).hasSize(10);
		}
	}

	private static PGSimpleDataSource dataSource(PostgresDatabase database) {
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setUrl(database.jdbcUrl());
		dataSource.setUser(database.username());
		return dataSource;
	}

	private static KafkaRelay relay(PostgresDatabase database, PGSimpleDataSource dataSource, KafkaTestBroker broker,
			String slot, String table, AtomicInteger retries) {
		return KafkaRelay.builder()
			.consumer(ReplicationConsumer.builder()
				.jdbcUrl(database.jdbcUrl(), database.username(), null)
				.statusInterval(Duration.ofSeconds(1))
				// Few attempts: a coordinator that does not answer must use none of them.
				.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofMillis(500), 1)))
			.dataSource(dataSource)
			.slotName(slot)
			.publicationName(slot)
			.tables(List.of(TableId.parse(table)))
			.listener(new ConsumerListener() {
				@Override
				public void retrying(int attempt, Duration backOff, Throwable cause) {
					retries.incrementAndGet();
				}
			})
			.initTimeout(INIT_TIMEOUT)
			.kafkaProperties(broker.clientProperties(), Map.of(), Map.of(), Map.of())
			.build();
	}

}
