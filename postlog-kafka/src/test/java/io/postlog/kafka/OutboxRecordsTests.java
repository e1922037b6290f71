package io.postlog.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Outbox rows and messages to records, and the errors for bad ones, which quote no
 * values.
 */
class OutboxRecordsTests {

	private final OutboxRecords records = new OutboxRecords("outbox.event.{aggregatetype}", "relay",
			Set.of("outbox.event.postlog-offsets"));

	@Test
	void rowBecomesARecordRoutedByAggregateType() {
		ProducerRecord<byte[], byte[]> record = this.records.record(change("orders", "42", "{\"total\": 1}"));
		assertThat(record.topic()).isEqualTo("outbox.event.orders");
		assertThat(text(record.key())).isEqualTo("42");
		assertThat(text(record.value())).isEqualTo("{\"total\": 1}");
		assertThat(text(record.headers().lastHeader("type").value())).isEqualTo("OrderCreated");
		assertThat(text(record.headers().lastHeader("postlog-id").value())).isEqualTo("relay/0/10/0");
		assertThat(text(record.headers().lastHeader("postlog-commit-lsn").value())).isEqualTo("0/10");
	}

	@Test
	void rowWhoseAggregateTypeIsNotATopicNameFailsWithoutQuotingIt() {
		assertThatExceptionOfType(KafkaRelayException.class)
			.isThrownBy(() -> this.records.record(change("secret value!", "42", "{}")))
			.withMessageContaining("outbox table public.outbox")
			.withMessageNotContaining("secret");
	}

	@Test
	void rowOrMessageNamingTheOffsetsTopicIsRefused() {
		assertThatExceptionOfType(KafkaRelayException.class)
			.isThrownBy(() -> this.records.record(change("postlog-offsets", "42", "{}")))
			.withMessageContaining("outbox table public.outbox")
			.withMessageContaining("offsets topic");
		assertThatExceptionOfType(KafkaRelayException.class)
			.isThrownBy(() -> this.records.record(message("{\"aggregatetype\":\"postlog-offsets\",\"payload\":1}")))
			.withMessageContaining("offsets topic");
	}

	@Test
	void messageBecomesARecordAndAStringPayloadIsSentAsText() {
		ProducerRecord<byte[], byte[]> record = this.records.record(message(
				"{\"aggregatetype\":\"payments\",\"aggregateid\":7,\"type\":\"PaymentTaken\",\"payload\":\"plain\"}"));
		assertThat(record.topic()).isEqualTo("outbox.event.payments");
		assertThat(text(record.key())).isEqualTo("7");
		assertThat(text(record.value())).isEqualTo("plain");
		assertThat(text(record.headers().lastHeader("postlog-id").value())).isEqualTo("relay/0/20/message");
		ProducerRecord<byte[], byte[]> json = this.records
			.record(message("{\"aggregatetype\":\"payments\",\"payload\":{\"amount\":\"3.50\"}}"));
		assertThat(text(json.value())).isEqualTo("{\"amount\":\"3.50\"}");
		assertThat(json.key()).isNull();
	}

	@Test
	void messageThatIsNotAnOutboxEventFailsWithoutQuotingIt() {
		assertThatExceptionOfType(KafkaRelayException.class).isThrownBy(() -> this.records.record(message("secret")))
			.withMessage("The outbox message at 0/20 is not JSON");
		assertThatExceptionOfType(KafkaRelayException.class)
			.isThrownBy(() -> this.records.record(message("{\"payload\":\"secret\"}")))
			.withMessageNotContaining("secret");
	}

	private static Change change(String aggregateType, String aggregateId, String payload) {
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("id", 1L);
		row.put("aggregatetype", aggregateType);
		row.put("aggregateid", aggregateId);
		row.put("type", "OrderCreated");
		row.put("payload", payload);
		return new Change(Operation.INSERT, TableId.parse("outbox"), null, Row.of(row), 1, Lsn.parse("0/10"),
				Instant.EPOCH, 0, "relay/0/10/0");
	}

	private static LogicalMessage message(String content) {
		return new LogicalMessage("outbox", content.getBytes(StandardCharsets.UTF_8), true, Lsn.parse("0/20"));
	}

	private static String text(byte[] bytes) {
		return new String(bytes, StandardCharsets.UTF_8);
	}

}
