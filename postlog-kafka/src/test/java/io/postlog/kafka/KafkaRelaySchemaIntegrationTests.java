package io.postlog.kafka;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Schema changes relayed to {@code postlog.kafka.schema-topic} on a real PostgreSQL and a
 * real KRaft broker, read back with {@code read_committed} consumers: each in the Kafka
 * transaction of the first change in its new shape, in commit order with the changes, in
 * each {@link RelayFormat}: Debezium's schema change records read as JSON, CloudEvents in
 * both modes by the CloudEvents SDK, none holding a row value.
 */
@PostgresTest
class KafkaRelaySchemaIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	@RegisterExtension
	static final KafkaTestBroker broker = KafkaTestBroker.perClass();

	@Test
	void schemaChangesGoToTheSchemaTopicInCommitOrderWithTheChanges(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE meters (id int PRIMARY KEY, reading int)");
		KafkaRelay relay = relay(database, "relay_schema");
		relay.start();
		try {
			try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
				statement.execute("INSERT INTO meters VALUES (1, 10)");
				statement.execute("ALTER TABLE meters ADD COLUMN unit text");
				statement.execute("INSERT INTO meters VALUES (2, 20, 'kWh')");
				statement.execute("ALTER TABLE meters RENAME COLUMN reading TO value");
				statement.execute("INSERT INTO meters VALUES (3, 30, 'kWh')");
			}
			List<ConsumerRecord<byte[], byte[]>> schema = broker.readAll("postlog.schema", 2, Duration.ofSeconds(60));
			List<ConsumerRecord<byte[], byte[]>> changes = broker.readAll("public.meters", 3, Duration.ofSeconds(60));
			assertThat(schema).hasSize(2);
			assertThat(changes).hasSize(3);
			JsonNode added = json.readTree(schema.get(0).value());
			JsonNode renamed = json.readTree(schema.get(1).value());
			assertThat(added.get("kind").asString()).isEqualTo("ADD_COLUMN");
			assertThat(renamed.get("kind").asString()).isEqualTo("RENAME_COLUMN");
			assertThat(new String(schema.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("public.meters");
			assertThat(added.get("after").get("columns").get(2).get("name").asString()).isEqualTo("unit");
			assertThat(added.get("after").get("columns").get(2).get("type").asString()).isEqualTo("text");
			assertThat(renamed.get("after").get("columns").get(1).get("name").asString()).isEqualTo("value");
			// In commit order with the changes: each schema change has the commit LSN of
			// the first change in its new shape, after the change before it.
			List<Lsn> changeLsns = new ArrayList<>();
			for (ConsumerRecord<byte[], byte[]> change : changes) {
				changeLsns.add(Lsn.parse(KafkaRelayIntegrationTests.header(change, "postlog-commit-lsn")));
			}
			changeLsns.sort(Comparator.naturalOrder());
			assertThat(Lsn.parse(added.get("commitLsn").asString())).isEqualTo(changeLsns.get(1));
			assertThat(Lsn.parse(renamed.get("commitLsn").asString())).isEqualTo(changeLsns.get(2));
			assertThat(KafkaRelayIntegrationTests.header(schema.get(0), "postlog-commit-lsn"))
				.isEqualTo(changeLsns.get(1).toString());
		}
		finally {
			relay.stop();
		}
	}

	@Test
	void schemaChangesTakeTheRelaysFormatAreReadByTheirReadersAndHoldNoRowValue(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE gauges (id int PRIMARY KEY, label text)");
		List<KafkaRelay> relays = List.of(
				relay(database, "relay_schema_dbz", "gauges", RelayFormat.DEBEZIUM, CloudEventsMode.BINARY),
				relay(database, "relay_schema_ceb", "gauges", RelayFormat.CLOUDEVENTS, CloudEventsMode.BINARY),
				relay(database, "relay_schema_ces", "gauges", RelayFormat.CLOUDEVENTS, CloudEventsMode.STRUCTURED));
		relays.forEach(KafkaRelay::start);
		try {
			try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
				statement.execute("INSERT INTO gauges VALUES (1, 'secret-label-one')");
				statement.execute("ALTER TABLE gauges ADD COLUMN unit text NOT NULL DEFAULT 'secret-default'");
				statement.execute("INSERT INTO gauges VALUES (2, 'secret-label-two', 'secret-unit-two')");
				statement.execute("ALTER TABLE gauges RENAME COLUMN label TO name");
				statement.execute("INSERT INTO gauges VALUES (3, 'secret-label-three', 'secret-unit-three')");
			}
			for (String slot : List.of("relay_schema_dbz", "relay_schema_ceb", "relay_schema_ces")) {
				List<ConsumerRecord<byte[], byte[]>> schema = broker.readAll(slot + ".schema", 2,
						Duration.ofSeconds(60));
				List<ConsumerRecord<byte[], byte[]>> changes = broker.readAll(slot + ".gauges", 3,
						Duration.ofSeconds(60));
				assertThat(schema).as(slot).hasSize(2);
				assertThat(changes).as(slot).hasSize(3);
				// In commit order with the changes: each schema change is sent with the
				// first change in its new shape, after the change before it.
				List<Lsn> changeLsns = new ArrayList<>();
				for (ConsumerRecord<byte[], byte[]> change : changes) {
					changeLsns.add(Lsn.parse(KafkaRelayIntegrationTests.header(change, "postlog-commit-lsn")));
				}
				changeLsns.sort(Comparator.naturalOrder());
				for (int i = 0; i < 2; i++) {
					ConsumerRecord<byte[], byte[]> record = schema.get(i);
					Lsn commitLsn = changeLsns.get(i + 1);
					assertThat(KafkaRelayIntegrationTests.header(record, "postlog-commit-lsn")).as(slot)
						.isEqualTo(commitLsn.toString());
					assertThat(KafkaRelayIntegrationTests.header(record, "postlog-id")).as(slot)
						.isEqualTo(slot + "/" + commitLsn + "/public.gauges/0");
					assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("public.gauges");
					assertNoRowValue(record);
				}
				if (slot.equals("relay_schema_dbz")) {
					assertDebezium(database, schema, changeLsns);
				}
				else {
					assertCloudEvents(slot, schema);
				}
			}
		}
		finally {
			relays.forEach(KafkaRelay::stop);
		}
	}

	private static void assertDebezium(PostgresDatabase database, List<ConsumerRecord<byte[], byte[]>> schema,
			List<Lsn> changeLsns) {
		List<List<String>> columns = List.of(List.of("id", "label", "unit"), List.of("id", "name", "unit"));
		for (int i = 0; i < 2; i++) {
			JsonNode value = json.readTree(schema.get(i).value());
			assertThat(value.get("databaseName").stringValue()).isEqualTo(database.name());
			assertThat(value.get("schemaName").stringValue()).isEqualTo("public");
			assertThat(value.get("ddl").isNull()).isTrue();
			assertThat(value.get("source").get("lsn").longValue()).isEqualTo(changeLsns.get(i + 1).value());
			assertThat(value.get("source").get("table").stringValue()).isEqualTo("gauges");
			JsonNode change = value.get("tableChanges").get(0);
			assertThat(change.get("type").stringValue()).isEqualTo("ALTER");
			assertThat(change.get("id").stringValue()).isEqualTo("\"public\".\"gauges\"");
			JsonNode table = change.get("table");
			assertThat(table.get("primaryKeyColumnNames")).extracting(JsonNode::stringValue).containsExactly("id");
			assertThat(table.get("columns")).extracting((column) -> column.get("name").stringValue())
				.containsExactlyElementsOf(columns.get(i));
			assertThat(table.get("columns")).extracting((column) -> column.get("typeName").stringValue())
				.containsExactly("integer", "text", "text");
			assertThat(table.get("columns")).extracting((column) -> column.get("position").intValue())
				.containsExactly(1, 2, 3);
			assertThat(table.get("columns").get(0).get("optional").booleanValue()).isFalse();
			assertThat(table.get("columns").get(1).get("optional").booleanValue()).isTrue();
		}
	}

	private static void assertCloudEvents(String slot, List<ConsumerRecord<byte[], byte[]>> schema) {
		List<String> kinds = new ArrayList<>();
		try (CloudEventDeserializer deserializer = new CloudEventDeserializer()) {
			for (ConsumerRecord<byte[], byte[]> record : schema) {
				CloudEvent event = deserializer.deserialize(record.topic(), record.headers(), record.value());
				assertThat(event.getId()).isEqualTo(KafkaRelayIntegrationTests.header(record, "postlog-id"));
				assertThat(event.getType()).isEqualTo("io.postlog.schema.changed");
				assertThat(event.getSource().toString()).isEqualTo("/postlog/" + slot);
				assertThat(event.getSubject()).isEqualTo("public.gauges");
				assertThat(event.getDataContentType()).isEqualTo("application/json");
				JsonNode data = json.readTree(event.getData().toBytes());
				assertThat(data.get("commitLsn").stringValue())
					.isEqualTo(KafkaRelayIntegrationTests.header(record, "postlog-commit-lsn"));
				kinds.add(data.get("kind").stringValue());
			}
		}
		assertThat(kinds).as(slot).containsExactly("ADD_COLUMN", "RENAME_COLUMN");
	}

	/**
	 * Asserts that no part of a schema record holds a value written to a row, nor the
	 * column default: every one of them holds {@code secret}.
	 */
	private static void assertNoRowValue(ConsumerRecord<byte[], byte[]> record) {
		assertThat(new String(record.key(), StandardCharsets.UTF_8)).doesNotContain("secret");
		assertThat(new String(record.value(), StandardCharsets.UTF_8)).doesNotContain("secret");
		for (Header header : record.headers()) {
			assertThat(new String(header.value(), StandardCharsets.UTF_8)).as(header.key()).doesNotContain("secret");
		}
	}

	private static KafkaRelay relay(PostgresDatabase database, String slot, String table, RelayFormat format,
			CloudEventsMode mode) {
		return broker.relay(database, slot)
			.tables(List.of(TableId.parse(table)))
			.topic(slot + ".{table}")
			.schemaTopic(slot + ".schema")
			.format(format)
			.cloudEventsMode(mode)
			.build();
	}

	private static KafkaRelay relay(PostgresDatabase database, String slot) {
		return broker.relay(database, slot)
			.tables(List.of(TableId.parse("meters")))
			.schemaTopic("postlog.schema")
			.build();
	}

}
