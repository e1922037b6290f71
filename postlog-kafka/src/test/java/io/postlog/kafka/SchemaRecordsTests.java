package io.postlog.kafka;

import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.util.List;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.postlog.Lsn;
import io.postlog.SchemaChange;
import io.postlog.SchemaChange.Kind;
import io.postlog.TableId;
import io.postlog.TableSchema;
import io.postlog.TableSchema.Column;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Schema change records in each {@link RelayFormat}, without a broker: Debezium's schema
 * change record read as JSON, CloudEvents read by the CloudEvents SDK's Kafka
 * deserializer in both modes, and the ids and headers every form shares.
 */
class SchemaRecordsTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final TableId ACCOUNTS = new TableId("shop", "accounts");

	private static final Lsn COMMIT = Lsn.parse("0/16B374D");

	private static final TableSchema BEFORE = new TableSchema(ACCOUNTS,
			List.of(new Column("id", 23, "integer", false, true), new Column("name", 25, "text", true, false)));

	private static final TableSchema AFTER = new TableSchema(ACCOUNTS,
			List.of(new Column("id", 23, "integer", false, true), new Column("name", 25, "text", true, false),
					new Column("opened_at", 1184, "timestamp with time zone", false, false),
					new Column("tags", 1009, "text[]", true, false)));

	private static final SchemaChange ADDED = new SchemaChange(ACCOUNTS, Kind.ADD_COLUMN, BEFORE, AFTER, COMMIT);

	@Test
	void debeziumSchemaChangeRecordHasTheShapeOfDebeziumsSchemaChangeTopic() {
		ProducerRecord<byte[], byte[]> record = records(RelayFormat.DEBEZIUM).record(ADDED);
		JsonNode value = json.readTree(record.value());
		JsonNode source = value.get("source");
		assertThat(source.get("connector").stringValue()).isEqualTo("postgresql");
		assertThat(source.get("name").stringValue()).isEqualTo("relay");
		assertThat(source.get("db").stringValue()).isEqualTo("shopdb");
		assertThat(source.get("schema").stringValue()).isEqualTo("shop");
		assertThat(source.get("table").stringValue()).isEqualTo("accounts");
		assertThat(source.get("lsn").longValue()).isEqualTo(COMMIT.value());
		assertThat(source.get("ts_ms").longValue()).isPositive();
		assertThat(value.get("ts_ms").longValue()).isPositive();
		assertThat(value.get("databaseName").stringValue()).isEqualTo("shopdb");
		assertThat(value.get("schemaName").stringValue()).isEqualTo("shop");
		assertThat(value.get("ddl").isNull()).isTrue();
		assertThat(value.get("tableChanges")).hasSize(1);
		JsonNode change = value.get("tableChanges").get(0);
		assertThat(change.get("type").stringValue()).isEqualTo("ALTER");
		assertThat(change.get("id").stringValue()).isEqualTo("\"shop\".\"accounts\"");
		assertThat(change.has("previousId")).isFalse();
		JsonNode table = change.get("table");
		assertThat(table.get("primaryKeyColumnNames")).extracting(JsonNode::stringValue).containsExactly("id");
		JsonNode columns = table.get("columns");
		assertThat(columns).extracting((column) -> column.get("name").stringValue())
			.containsExactly("id", "name", "opened_at", "tags");
		assertThat(columns).extracting((column) -> column.get("position").intValue()).containsExactly(1, 2, 3, 4);
		assertThat(columns).extracting((column) -> column.get("optional").booleanValue())
			.containsExactly(false, true, false, true);
		assertThat(columns).extracting((column) -> column.get("jdbcType").intValue())
			.containsExactly(Types.INTEGER, Types.VARCHAR, Types.TIMESTAMP, Types.ARRAY);
		assertThat(columns).extracting((column) -> column.get("nativeType").intValue())
			.containsExactly(23, 25, 1184, 1009);
		assertThat(columns).extracting((column) -> column.get("typeName").stringValue())
			.containsExactly("integer", "text", "timestamp with time zone", "text[]");
	}

	@Test
	void debeziumTableChangeTypeIsCreateDropOrAlterAndARenameNamesThePreviousId() {
		SchemaRecords records = records(RelayFormat.DEBEZIUM);
		JsonNode created = tableChange(
				records.record(new SchemaChange(ACCOUNTS, Kind.CREATE_TABLE, null, AFTER, COMMIT)));
		assertThat(created.get("type").stringValue()).isEqualTo("CREATE");
		assertThat(created.get("table").get("columns")).hasSize(4);
		JsonNode dropped = tableChange(
				records.record(new SchemaChange(ACCOUNTS, Kind.DROP_TABLE, BEFORE, null, COMMIT)));
		assertThat(dropped.get("type").stringValue()).isEqualTo("DROP");
		assertThat(dropped.get("table").get("columns")).hasSize(2);
		TableId renamed = new TableId("shop", "clients");
		JsonNode rename = tableChange(records.record(new SchemaChange(renamed, Kind.RENAME_TABLE, BEFORE,
				new TableSchema(renamed, BEFORE.columns()), COMMIT)));
		assertThat(rename.get("type").stringValue()).isEqualTo("ALTER");
		assertThat(rename.get("id").stringValue()).isEqualTo("\"shop\".\"clients\"");
		assertThat(rename.get("previousId").stringValue()).isEqualTo("\"shop\".\"accounts\"");
		for (Kind kind : List.of(Kind.DROP_COLUMN, Kind.RENAME_COLUMN, Kind.ALTER_TYPE, Kind.ALTER_NULLABILITY,
				Kind.ALTER_KEY)) {
			assertThat(DebeziumSchemaJson.type(kind)).as(kind.name()).isEqualTo("ALTER");
		}
		TableId quoted = new TableId("Shop", "a\"b");
		assertThat(DebeziumSchemaJson.id(quoted)).isEqualTo("\"Shop\".\"a\"\"b\"");
	}

	@Test
	void schemaChangesInBinaryModeAreReadByTheCloudEventsSdk() {
		assertEvent(RelayFormat.CLOUDEVENTS, CloudEventsMode.BINARY, "application/json");
	}

	@Test
	void schemaChangesInStructuredModeAreReadByTheCloudEventsSdk() {
		assertEvent(RelayFormat.CLOUDEVENTS, CloudEventsMode.STRUCTURED, "application/cloudevents+json; charset=UTF-8");
	}

	@Test
	void postlogFormIsTheSchemaChangeJson() {
		ProducerRecord<byte[], byte[]> record = records(RelayFormat.POSTLOG).record(ADDED);
		JsonNode value = json.readTree(record.value());
		assertThat(value.get("kind").stringValue()).isEqualTo("ADD_COLUMN");
		assertThat(value.get("commitLsn").stringValue()).isEqualTo("0/16B374D");
		assertThat(value.get("after").get("columns").get(2).get("type").stringValue())
			.isEqualTo("timestamp with time zone");
		assertThat(record.value()).isEqualTo(SchemaRecords.json(ADDED));
	}

	@Test
	void everyFormIsKeyedByTableWithTheIdAndCommitLsnHeaders() {
		for (RelayFormat format : RelayFormat.values()) {
			ProducerRecord<byte[], byte[]> record = records(format).record(ADDED);
			assertThat(record.topic()).as(format.name()).isEqualTo("schemas");
			assertThat(new String(record.key(), StandardCharsets.UTF_8)).as(format.name()).isEqualTo("shop.accounts");
			assertThat(header(record, "postlog-id")).as(format.name()).isEqualTo("relay/0/16B374D/shop.accounts/0");
			assertThat(header(record, "postlog-commit-lsn")).as(format.name()).isEqualTo("0/16B374D");
		}
	}

	@Test
	void idCountsTheSchemaChangesOfACommitLsnAndStartsAgainWithEachSession() {
		SchemaRecords records = records(RelayFormat.POSTLOG);
		SchemaChange renamed = new SchemaChange(ACCOUNTS, Kind.RENAME_COLUMN, AFTER, AFTER, COMMIT);
		SchemaChange later = new SchemaChange(ACCOUNTS, Kind.DROP_COLUMN, AFTER, BEFORE, Lsn.parse("0/16B4000"));
		assertThat(header(records.record(ADDED), "postlog-id")).isEqualTo("relay/0/16B374D/shop.accounts/0");
		assertThat(header(records.record(renamed), "postlog-id")).isEqualTo("relay/0/16B374D/shop.accounts/1");
		assertThat(header(records.record(later), "postlog-id")).isEqualTo("relay/0/16B4000/shop.accounts/0");
		// A session after a failure delivers from the relayed position: the same ids
		// again.
		records.session();
		assertThat(header(records.record(ADDED), "postlog-id")).isEqualTo("relay/0/16B374D/shop.accounts/0");
		assertThat(header(records.record(renamed), "postlog-id")).isEqualTo("relay/0/16B374D/shop.accounts/1");
	}

	private static void assertEvent(RelayFormat format, CloudEventsMode mode, String contentType) {
		ProducerRecord<byte[], byte[]> record = new SchemaRecords("schemas", "relay",
				SchemaFormatter.of(format, mode, "relay", null))
			.record(ADDED);
		assertThat(header(record, "content-type")).isEqualTo(contentType);
		CloudEvent event;
		try (CloudEventDeserializer deserializer = new CloudEventDeserializer()) {
			event = deserializer.deserialize("schemas", record.headers(), record.value());
		}
		assertThat(event.getSpecVersion().toString()).isEqualTo("1.0");
		assertThat(event.getId()).isEqualTo("relay/0/16B374D/shop.accounts/0");
		assertThat(event.getSource().toString()).isEqualTo("/postlog/relay");
		assertThat(event.getType()).isEqualTo("io.postlog.schema.changed");
		assertThat(event.getSubject()).isEqualTo("shop.accounts");
		assertThat(event.getTime()).isNull();
		assertThat(event.getDataContentType()).isEqualTo("application/json");
		assertThat(json.readTree(event.getData().toBytes())).isEqualTo(json.readTree(SchemaRecords.json(ADDED)));
	}

	private static JsonNode tableChange(ProducerRecord<byte[], byte[]> record) {
		return json.readTree(record.value()).get("tableChanges").get(0);
	}

	private static SchemaRecords records(RelayFormat format) {
		SchemaFormatter formatter = (format == RelayFormat.DEBEZIUM) ? new DebeziumSchemaJson("relay", () -> "shopdb")
				: SchemaFormatter.of(format, CloudEventsMode.BINARY, "relay", null);
		return new SchemaRecords("schemas", "relay", formatter);
	}

	private static String header(ProducerRecord<byte[], byte[]> record, String name) {
		return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
	}

}
