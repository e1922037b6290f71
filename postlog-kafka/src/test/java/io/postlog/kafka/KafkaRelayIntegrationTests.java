package io.postlog.kafka;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

import io.postlog.TableId;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.RetryPolicy;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The relay on a real PostgreSQL and a real KRaft broker, read back with
 * {@code read_committed} consumers.
 */
@PostgresTest
class KafkaRelayIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	@RegisterExtension
	static final KafkaTestBroker broker = KafkaTestBroker.perClass();

	@Test
	void everyChangeOfA100000ChangeWorkloadArrivesOnceInOrderPerKey(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE items (k int PRIMARY KEY, v int NOT NULL)");
		broker.createTopic("public.items", 3);
		KafkaRelay relay = relay(database, "relay_workload",
				(builder) -> builder.tables(List.of(TableId.parse("items"))));
		relay.start();
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			for (int i = 0; i < 20; i++) {
				statement.execute("INSERT INTO items SELECT g, 1 FROM generate_series(" + (i * 1000 + 1) + ", "
						+ (i * 1000 + 1000) + ") g");
				connection.commit();
			}
			for (int i = 0; i < 80; i++) {
				int from = (i * 1000) % 20000 + 1;
				statement.execute("UPDATE items SET v = v + 1 WHERE k BETWEEN " + from + " AND " + (from + 999));
				connection.commit();
				if (i == 40) {
					// A clean restart in the middle: the new relay resumes after what the
					// first one committed to Kafka.
					KafkaRelay first = relay;
					await().atMost(Duration.ofSeconds(60)).until(() -> first.progress().transactions() > 0);
					relay.stop();
					relay = relay(database, "relay_workload",
							(builder) -> builder.tables(List.of(TableId.parse("items"))));
					relay.start();
				}
			}
		}
		KafkaRelay last = relay;
		await().atMost(Duration.ofSeconds(120))
			.until(() -> last.progress().lastCommitLsn().isValid()
					&& !last.ackedLsn().isBefore(currentLsnOf(database)));
		last.stop();
		List<ConsumerRecord<byte[], byte[]>> records = broker.readAll("public.items", 100_000, Duration.ofSeconds(60));
		assertThat(records).hasSize(100_000);
		Set<String> ids = new HashSet<>();
		Map<Integer, Integer> versions = new HashMap<>();
		Map<Integer, Integer> partitions = new HashMap<>();
		for (ConsumerRecord<byte[], byte[]> record : records) {
			JsonNode value = json.readTree(record.value());
			String id = value.get("id").stringValue();
			assertThat(ids.add(id)).as("change %s once", id).isTrue();
			assertThat(header(record, "postlog-id")).isEqualTo(id);
			assertThat(header(record, "postlog-commit-lsn")).isEqualTo(value.get("commitLsn").stringValue());
			int key = value.get("after").get("k").intValue();
			assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("{\"k\":" + key + "}");
			int version = value.get("after").get("v").intValue();
			Integer previous = versions.put(key, version);
			assertThat(version).as("version of key %s", key).isEqualTo((previous != null) ? previous + 1 : 1);
			Integer partition = partitions.putIfAbsent(key, record.partition());
			assertThat(partition).as("partition of key %s", key).isIn(null, record.partition());
		}
		assertThat(versions).hasSize(20_000);
		assertThat(versions.values()).containsOnly(5);
		assertThat(new HashSet<>(partitions.values())).hasSize(3);
	}

	@Test
	void outboxRowInsertedAndDeletedInOneTransactionIsRelayedAndTheRowIsGone(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE outbox (id uuid PRIMARY KEY, aggregatetype text NOT NULL, "
				+ "aggregateid text NOT NULL, type text NOT NULL, payload jsonb)");
		// Outbox messages (pg_logical_emit_message) reach pgoutput from PostgreSQL 14 on;
		// before,
		// a message prefix is refused at start-up, so only the outbox table is relayed
		// there.
		boolean messages = database.serverVersion() >= 140000;
		KafkaRelay relay = relay(database, "relay_outbox", (builder) -> {
			builder.outboxTable(TableId.parse("outbox"));
			return messages ? builder.outboxMessagePrefix("outbox") : builder;
		});
		relay.start();
		try {
			try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
				connection.setAutoCommit(false);
				statement.execute("INSERT INTO outbox VALUES ('6f1c1d6e-4b8e-4d0e-9a55-0d7b1f2b9c01', 'orders', "
						+ "'42', 'OrderCreated', '{\"total\": 12.50}')");
				statement.execute("DELETE FROM outbox");
				connection.commit();
				if (messages) {
					statement
						.execute("SELECT pg_logical_emit_message(false, 'outbox', '{\"aggregatetype\":\"payments\","
								+ "\"aggregateid\":\"0\",\"payload\":\"not relayed\"}')");
					statement.execute("SELECT pg_logical_emit_message(true, 'outbox', '{\"aggregatetype\":\"payments\","
							+ "\"aggregateid\":\"7\",\"type\":\"PaymentTaken\",\"payload\":{\"amount\":\"3.50\"}}')");
					connection.commit();
				}
			}
			List<ConsumerRecord<byte[], byte[]>> orders = broker.readAll("orders", 1, Duration.ofSeconds(60));
			assertThat(orders).hasSize(1);
			ConsumerRecord<byte[], byte[]> order = orders.get(0);
			assertThat(new String(order.key(), StandardCharsets.UTF_8)).isEqualTo("42");
			assertThat(new String(order.value(), StandardCharsets.UTF_8)).isEqualTo("{\"total\": 12.50}");
			assertThat(header(order, "type")).isEqualTo("OrderCreated");
			assertThat(header(order, "id")).isEqualTo("6f1c1d6e-4b8e-4d0e-9a55-0d7b1f2b9c01");
			try (Connection connection = database.connect();
					Statement statement = connection.createStatement();
					ResultSet rows = statement.executeQuery("SELECT count(*) FROM outbox")) {
				rows.next();
				assertThat(rows.getLong(1)).isZero();
			}
			if (messages) {
				List<ConsumerRecord<byte[], byte[]>> payments = broker.readAll("payments", 1, Duration.ofSeconds(60));
				assertThat(payments).hasSize(1);
				ConsumerRecord<byte[], byte[]> payment = payments.get(0);
				assertThat(new String(payment.key(), StandardCharsets.UTF_8)).isEqualTo("7");
				assertThat(new String(payment.value(), StandardCharsets.UTF_8)).isEqualTo("{\"amount\":\"3.50\"}");
				assertThat(header(payment, "type")).isEqualTo("PaymentTaken");
			}
			assertThat(relay.state()).isEqualTo(ConsumerState.RUNNING);
		}
		finally {
			relay.stop();
		}
	}

	private static KafkaRelay relay(PostgresDatabase database, String slot, UnaryOperator<KafkaRelayBuilder> custom) {
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setUrl(database.jdbcUrl());
		dataSource.setUser(database.username());
		KafkaRelayBuilder builder = KafkaRelay.builder()
			.consumer(ReplicationConsumer.builder()
				.jdbcUrl(database.jdbcUrl(), database.username(), null)
				.statusInterval(Duration.ofSeconds(1))
				.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1), 10)))
			.dataSource(dataSource)
			.slotName(slot)
			.publicationName(slot)
			.kafkaProperties(broker.clientProperties(), Map.of(), Map.of(), Map.of());
		return custom.apply(builder).build();
	}

	static io.postlog.Lsn currentLsnOf(PostgresDatabase database) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT pg_current_wal_lsn()")) {
			rows.next();
			return io.postlog.Lsn.parse(rows.getString(1));
		}
	}

	static String header(ConsumerRecord<byte[], byte[]> record, String name) {
		Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : null;
	}

}
