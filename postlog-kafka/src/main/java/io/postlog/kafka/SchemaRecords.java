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
 * partition, in order), value the schema change as JSON ({@code table}, {@code kind},
 * {@code before}, {@code after} with their columns, {@code commitLsn}), header
 * {@code postlog-commit-lsn}. Sent in the Kafka transaction of the source transaction it
 * came in, before that transaction's first change in the new shape. Stateless.
 */
final class SchemaRecords {

	private final String topic;

	SchemaRecords(String topic) {
		this.topic = topic;
	}

	ProducerRecord<byte[], byte[]> record(SchemaChange change) {
		RecordHeaders headers = new RecordHeaders();
		headers.add(ChangeRecords.COMMIT_LSN_HEADER, change.commitLsn().toString().getBytes(StandardCharsets.UTF_8));
		byte[] value = ChangeJson.write((json) -> {
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
		byte[] key = change.table().toString().getBytes(StandardCharsets.UTF_8);
		return new ProducerRecord<>(this.topic, null, key, value, headers);
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
