package io.postlog.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import io.postlog.TableId;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.RetryPolicy;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The relay's failures on a real PostgreSQL and a real KRaft broker leave a value planted
 * in the row out of every message and log line; an outbox event that names the relay's
 * offsets topic is refused, like other bad outbox rows, and never written there.
 */
@PostgresTest
@ExtendWith(OutputCaptureExtension.class)
class KafkaRelayValueFreeIntegrationTests {

	private static final String SECRET = "SECRET-kafka-51c9";

	@RegisterExtension
	static final KafkaTestBroker broker = KafkaTestBroker.perClass();

	@Test
	void outboxEventNamingTheOffsetsTopicIsRefusedAndNotWrittenThere(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE vf_outbox (id bigserial PRIMARY KEY, aggregatetype text NOT NULL, "
				+ "aggregateid text, type text, payload text)");
		KafkaRelay relay = relay(database, "vf_outbox_relay",
				(builder) -> builder.outboxTable(TableId.parse("vf_outbox")).offsetsTopic("vf.offsets"), Map.of());
		relay.start();
		try {
			database.execute("INSERT INTO vf_outbox (aggregatetype, aggregateid, type, payload) "
					+ "VALUES ('vf.offsets', '1', 'Forged', '{\"commitLsn\": \"FFFFFFFF/0\", \"note\": \"" + SECRET
					+ "\"}')");
			await().atMost(Duration.ofSeconds(60))
				.until(() -> chain(relay.lastFailure()).stream()
					.anyMatch((link) -> link instanceof KafkaRelayException
							&& link.getMessage().contains("offsets topic")));
			assertThat(chain(relay.lastFailure())).filteredOn(KafkaRelayException.class::isInstance)
				.first()
				.satisfies((refusal) -> assertThat(refusal.getMessage()).contains(
						"The topic for outbox table public.vf_outbox is vf.offsets, the relay's own offsets topic"));
		}
		finally {
			relay.stop();
		}
		List<ConsumerRecord<byte[], byte[]>> offsets = broker.readAll("vf.offsets", 0, Duration.ofSeconds(5));
		assertThat(offsets).noneMatch((record) -> record.value() != null
				&& new String(record.value(), StandardCharsets.UTF_8).contains(SECRET));
		assertThat(messages(relay.lastFailure())).noneMatch((message) -> message.contains(SECRET));
		assertThat(output.getAll()).doesNotContain(SECRET);
	}

	@Test
	void recordTooLargeForTheBrokerLeavesThePlantedValueOutOfMessagesAndLogs(PostgresDatabase database,
			CapturedOutput output) {
		database.execute("CREATE TABLE vf_big (id int PRIMARY KEY, note text)");
		KafkaRelay relay = relay(database, "vf_big_relay",
				(builder) -> builder.tables(List.of(TableId.parse("vf_big"))).offsetsTopic("vf_big.offsets"),
				Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4096));
		relay.start();
		try {
			database.execute("INSERT INTO vf_big VALUES (1, '" + SECRET + "' || repeat('x', 20000))");
			await().atMost(Duration.ofSeconds(60)).until(() -> relay.lastFailure() != null);
		}
		finally {
			relay.stop();
		}
		assertThat(messages(relay.lastFailure())).noneMatch((message) -> message.contains(SECRET));
		assertThat(output.getAll()).contains("vf_big_relay").doesNotContain(SECRET);
	}

	private static KafkaRelay relay(PostgresDatabase database, String slot, UnaryOperator<KafkaRelayBuilder> custom,
			Map<String, Object> producer) {
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setUrl(database.jdbcUrl());
		dataSource.setUser(database.username());
		KafkaRelayBuilder builder = KafkaRelay.builder()
			.consumer(ReplicationConsumer.builder()
				.jdbcUrl(database.jdbcUrl(), database.username(), null)
				.statusInterval(Duration.ofSeconds(1))
				.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofMillis(500), 3)))
			.dataSource(dataSource)
			.slotName(slot)
			.publicationName(slot)
			.kafkaProperties(broker.clientProperties(), producer, Map.of(), Map.of());
		return custom.apply(builder).build();
	}

	private static List<Throwable> chain(Throwable failure) {
		List<Throwable> chain = new ArrayList<>();
		for (Throwable link = failure; link != null && !chain.contains(link); link = link.getCause()) {
			chain.add(link);
		}
		return chain;
	}

	private static List<String> messages(Throwable failure) {
		List<String> messages = new ArrayList<>();
		for (Throwable link : chain(failure)) {
			messages.add(String.valueOf(link.getMessage()));
			messages.add(link.toString());
			for (Throwable suppressed : link.getSuppressed()) {
				messages.addAll(messages(suppressed));
			}
		}
		return messages;
	}

}
