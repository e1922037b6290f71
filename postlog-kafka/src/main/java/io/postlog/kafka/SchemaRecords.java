package io.postlog.kafka;

import java.nio.charset.StandardCharsets;

import io.postlog.SchemaChange;
import io.postlog.TableSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonGenerator;

/**
 * Makes the Kafka record of a schema change: topic {@code postlog.kafka.schema-topic},
 * key the table ({@code schema.table}, so each table's schema changes stay in one
 * partition, in order), value the schema change in the relay's {@link RelayFormat} (by
 * default as JSON, {@link #json}), headers {@code postlog-id} (the schema change's id),
 * {@code postlog-commit-lsn} and those of the format. Sent in the Kafka transaction of
 * the source transaction it came in, before that transaction's first change in the new
 * shape.
 * <p>
 * A schema change's id is the relay's slot, the commit LSN, the table and the schema
 * change's position among those the relay sent with that commit LSN (from {@code 0}):
 * {@code postlog_kafka/0/1A2B3C4/public.meters/0}. The position restarts with each
 * session, so a schema change sent again after a failure has its id again. Delivery
 * thread only.
 */
final class SchemaRecords {

	private final String topic;

	private final String slotName;

	private final SchemaFormatter format;

	private long lastCommitLsn = -1;

	private int position;

	SchemaRecords(String topic, String slotName, SchemaFormatter format) {
		this.topic = topic;
		this.slotName = slotName;
		this.format = format;
	}

	/**
	 * Starts a session: what follows is delivered from the relayed position on.
	 */
	void session() {
		this.lastCommitLsn = -1;
		this.position = 0;
	}

	ProducerRecord<byte[], byte[]> record(SchemaChange change) {
		if (change.commitLsn().value() != this.lastCommitLsn) {
			this.lastCommitLsn = change.commitLsn().value();
			this.position = 0;
		}
		String id = this.slotName + "/" + change.commitLsn() + "/" + change.table() + "/" + this.position++;
		RecordHeaders headers = new RecordHeaders();
		headers.add(ChangeRecords.ID_HEADER, id.getBytes(StandardCharsets.UTF_8));
		headers.add(ChangeRecords.COMMIT_LSN_HEADER, change.commitLsn().toString().getBytes(StandardCharsets.UTF_8));
		byte[] value = this.format.value(change, id, headers);
		byte[] key = change.table().toString().getBytes(StandardCharsets.UTF_8);
		return new ProducerRecord<>(this.topic, null, key, value, headers);
	}

	/**
	 * Writes a schema change as postlog's JSON: {@code table}, {@code kind},
	 * {@code before}, {@code after} with their columns, {@code commitLsn}.
	 * @param change the schema change
	 * @return the UTF-8 JSON
	 */
	static byte[] json(SchemaChange change) {
		return ChangeJson.write((json) -> {
			json.writeStartObject();
			json.writeName("table");
			json.writeStartObject();
			json.writeStringProperty("schema", change.table().schema());
			json.writeStringProperty("name", change.table().name());
			json.writeEndObject();
			json.writeStringProperty("kind", change.kind().name());
			json.writeName("before");
			shape(json, change.before());
			json.writeName("after");
			shape(json, change.after());
			json.writeStringProperty("commitLsn", change.commitLsn().toString());
			json.writeEndObject();
		});
	}

	private static void shape(JsonGenerator json, @Nullable TableSchema schema) {
		if (schema == null) {
			json.writeNull();
			return;
		}
		json.writeStartObject();
		json.writeStringProperty("table", schema.table().toString());
		json.writeName("columns");
		json.writeStartArray();
		for (TableSchema.Column column : schema.columns()) {
			json.writeStartObject();
			json.writeStringProperty("name", column.name());
			json.writeNumberProperty("typeOid", Integer.toUnsignedLong(column.typeOid()));
			json.writeStringProperty("type", column.typeName());
			json.writeBooleanProperty("nullable", column.nullable());
			json.writeBooleanProperty("key", column.key());
			json.writeEndObject();
		}
		json.writeEndArray();
		json.writeEndObject();
	}

}
