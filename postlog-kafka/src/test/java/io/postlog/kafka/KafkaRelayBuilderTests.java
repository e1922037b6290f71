package io.postlog.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.ReplicationConsumer;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The relay's configuration is checked before anything touches a server.
 */
class KafkaRelayBuilderTests {

	@Test
	void relayWithNothingToRelayIsRefused() {
		assertThatExceptionOfType(ReplicationConsumerException.class).isThrownBy(() -> builder().build())
			.withMessageContaining("postlog.kafka.tables");
	}

	@Test
	void tableWhoseTopicIsNotALegalNameIsRefused() {
		assertThatExceptionOfType(KafkaRelayException.class)
			.isThrownBy(() -> builder().tables(List.of(new TableId("public", "order items"))).build())
			.withMessageContaining("table public.order items");
	}

	@Test
	void tableWhoseTopicIsTheOffsetsTopicIsRefused() {
		assertThatExceptionOfType(KafkaRelayException.class)
			.isThrownBy(() -> builder().tables(List.of(new TableId("postlog", "offsets"))).build())
			.withMessageContaining("table postlog.offsets")
			.withMessageContaining("offsets topic");
	}

	@Test
	void outboxTableThatIsAlsoARelayedTableIsRefused() {
		assertThatExceptionOfType(ReplicationConsumerException.class).isThrownBy(
				() -> builder().tables(List.of(TableId.parse("outbox"))).outboxTable(TableId.parse("outbox")).build())
			.withMessageContaining("both the outbox table and a relayed table");
	}

	@Test
	void initTimeoutThatIsNotPositiveIsRefused() {
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> builder().tables(List.of(TableId.parse("orders"))).initTimeout(Duration.ZERO).build())
			.withMessageContaining("postlog.kafka.init-timeout");
	}

	@Test
	void validRelayIsBuiltWithoutStarting() {
		KafkaRelay relay = builder().tables(List.of(TableId.parse("orders"))).build();
		assertThat(relay.state()).isEqualTo(ConsumerState.STOPPED);
		assertThat(relay.slotName()).isEqualTo("postlog_kafka");
		assertThat(relay.progress().records()).isZero();
	}

	private static KafkaRelayBuilder builder() {
		return KafkaRelay.builder()
			.consumer(ReplicationConsumer.builder().jdbcUrl("jdbc:postgresql://127.0.0.1:1/none", "nobody", null))
			.dataSource(new PGSimpleDataSource())
			.kafkaProperties(Map.of("bootstrap.servers", "127.0.0.1:1"), Map.of(), Map.of(), Map.of());
	}

}
