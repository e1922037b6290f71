package io.postlog.kafka;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Row;
import io.postlog.TableId;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Makes the Kafka record of an outbox event, with the columns of Debezium's outbox event
 * router: {@code aggregatetype} names the topic (through the outbox topic pattern,
 * {@code {aggregatetype}} by default), {@code aggregateid} is the key, {@code payload}
 * the value, {@code type} the header {@code type}, and {@code id}, when present, the
 * header {@code id}. An event is an inserted row of the outbox table, or a transactional
 * logical message whose content is a JSON object with those fields. A text payload is
 * sent as its UTF-8 bytes, {@code bytea} as is, and any other value (a JSON message
 * payload that is not a string, a non-text column) as JSON. An event whose topic would be
 * the relay's own offsets topic is refused with a {@link KafkaRelayException}, as one
 * without an aggregatetype or with an illegal topic name is. Delivery thread only.
 */
final class OutboxRecords {

	static final String AGGREGATE_TYPE = "aggregatetype";

	static final String AGGREGATE_ID = "aggregateid";

	static final String TYPE = "type";

	static final String PAYLOAD = "payload";

	static final String ID = "id";

	private final String topicPattern;

	private final String slotName;

	private final Set<String> reserved;

	/**
	 * Creates the records' maker.
	 * @param topicPattern the outbox topic pattern
	 * @param slotName the slot, for the ids of message events
	 * @param reserved the relay's own topics (its offsets topic): an event naming one is
	 * refused, not relayed
	 */
	OutboxRecords(String topicPattern, String slotName, Set<String> reserved) {
		this.topicPattern = topicPattern;
		this.slotName = slotName;
		this.reserved = Set.copyOf(reserved);
	}

	ProducerRecord<byte[], byte[]> record(Change change) {
		Row row = change.after();
		TableId table = change.table();
		if (row == null || !row.contains(AGGREGATE_TYPE) || !row.contains(PAYLOAD)) {
			throw new KafkaRelayException("Outbox table " + table + " needs the columns aggregatetype and payload",
					null);
		}
		Object aggregateType = row.get(AGGREGATE_TYPE);
		if (aggregateType == null) {
			throw new KafkaRelayException("A row of outbox table " + table + " (change " + change.id()
					+ ") has no aggregatetype, which names its topic", null);
		}
		RecordHeaders headers = headers(change.id(), change.commitLsn().toString());
		header(headers, TYPE, row.contains(TYPE) ? row.get(TYPE) : null);
		header(headers, ID, row.contains(ID) ? row.get(ID) : null);
		Object key = row.contains(AGGREGATE_ID) ? row.get(AGGREGATE_ID) : null;
		return new ProducerRecord<>(topic(aggregateType.toString(), "outbox table " + table), null, text(key),
				payload(row.get(PAYLOAD)), headers);
	}

	ProducerRecord<byte[], byte[]> record(LogicalMessage message) {
		JsonNode event;
		try {
			event = ChangeJson.mapper().readTree(message.content());
		}
		catch (JacksonException ex) {
			throw new KafkaRelayException("The outbox message at " + message.lsn() + " is not JSON", null);
		}
		JsonNode aggregateType = (event != null && event.isObject()) ? event.get(AGGREGATE_TYPE) : null;
		if (aggregateType == null || !aggregateType.isString()) {
			throw new KafkaRelayException(
					"The outbox message at " + message.lsn() + " is not a JSON object with a string aggregatetype",
					null);
		}
		String id = this.slotName + "/" + message.lsn() + "/message";
		RecordHeaders headers = headers(id, null);
		headers.add("postlog-lsn", message.lsn().toString().getBytes(StandardCharsets.UTF_8));
		header(headers, TYPE, scalar(event.get(TYPE)));
		header(headers, ID, scalar(event.get(ID)));
		JsonNode payload = event.get(PAYLOAD);
		byte[] value = (payload == null || payload.isNull()) ? null
				: payload.isString() ? payload.stringValue().getBytes(StandardCharsets.UTF_8)
						: ChangeJson.mapper().writeValueAsBytes(payload);
		return new ProducerRecord<>(topic(aggregateType.stringValue(), "the outbox message at " + message.lsn()), null,
				text(scalar(event.get(AGGREGATE_ID))), value, headers);
	}

	private String topic(String aggregateType, String source) {
		return TopicNames.requireOwn(
				TopicNames.require(this.topicPattern.replace("{aggregatetype}", aggregateType), source), this.reserved,
				source);
	}

	private static RecordHeaders headers(String id, @Nullable String commitLsn) {
		RecordHeaders headers = new RecordHeaders();
		headers.add(ChangeRecords.ID_HEADER, id.getBytes(StandardCharsets.UTF_8));
		if (commitLsn != null) {
			headers.add(ChangeRecords.COMMIT_LSN_HEADER, commitLsn.getBytes(StandardCharsets.UTF_8));
		}
		return headers;
	}

	private static void header(RecordHeaders headers, String name, @Nullable Object value) {
		byte[] bytes = text(value);
		if (bytes != null) {
			headers.add(name, bytes);
		}
	}

	private static @Nullable Object scalar(@Nullable JsonNode node) {
		if (node == null || node.isNull()) {
			return null;
		}
		return node.isString() ? node.stringValue() : node.toString();
	}

	private static byte @Nullable [] text(@Nullable Object value) {
		if (value == null) {
			return null;
		}
		if (value instanceof byte[] bytes) {
			return bytes;
		}
		return value.toString().getBytes(StandardCharsets.UTF_8);
	}

	private static byte @Nullable [] payload(@Nullable Object value) {
		if (value == null || value instanceof byte[] || value instanceof String) {
			return text(value);
		}
		return ChangeJson.value(value);
	}

}
