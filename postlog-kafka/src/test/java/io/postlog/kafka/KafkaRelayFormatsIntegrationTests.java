package io.postlog.kafka;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.debezium.DebeziumJsonDeserializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.RowKind;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The relay's formats on a real PostgreSQL and a real KRaft broker, read back with
 * {@code read_committed} consumers by real readers: Debezium envelopes (the format chosen
 * by {@code postlog.kafka.format=debezium} in a Boot application) by Flink's
 * {@code debezium-json} deserializer, CloudEvents in both modes by the CloudEvents SDK's
 * Kafka deserializer.
 */
@PostgresTest
class KafkaRelayFormatsIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final DataType ACCOUNT = DataTypes.ROW(DataTypes.FIELD("id", DataTypes.INT()),
			DataTypes.FIELD("name", DataTypes.STRING()), DataTypes.FIELD("balance", DataTypes.DECIMAL(10, 2)),
			DataTypes.FIELD("active", DataTypes.BOOLEAN()));

	@RegisterExtension
	static final KafkaTestBroker broker = KafkaTestBroker.perClass();

	@Test
	void debeziumFormatOfABootApplicationIsReadByFlinksDebeziumJsonFormat(PostgresDatabase database) throws Exception {
		createAccounts(database, "accounts");
		SpringApplication application = new SpringApplication(RelayApplication.class);
		application
			.setDefaultProperties(Map.of("spring.datasource.url", database.jdbcUrl(), "spring.datasource.username",
					database.username(), "spring.kafka.bootstrap-servers", broker.bootstrapServers(),
					"postlog.kafka.enabled", "true", "postlog.kafka.tables", "accounts", "postlog.kafka.format",
					"debezium", "postlog.kafka.topic", "debezium.{table}", "postlog.kafka.slot.name", "relay_debezium",
					"postlog.status-interval", "1s", "spring.main.banner-mode", "off"));
		List<ConsumerRecord<byte[], byte[]>> records;
		try (ConfigurableApplicationContext context = application.run()) {
			writeAccounts(database, "accounts");
			records = broker.readAll("debezium.accounts", expectedRecords(database), Duration.ofSeconds(60));
		}
		assertThat(records).hasSize(expectedRecords(database));
		List<RowData> rows = new ArrayList<>();
		DebeziumJsonDeserializationSchema flink = new DebeziumJsonDeserializationSchema(ACCOUNT, List.of(),
				TypeInformation.of(RowData.class), false, false, TimestampFormat.ISO_8601);
		flink.open(null);
		for (ConsumerRecord<byte[], byte[]> record : records.subList(0, 4)) {
			flink.deserialize(record.value(), new ListCollector<>(rows));
		}
		assertThat(rows).extracting(RowData::getRowKind)
			.containsExactly(RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER,
					RowKind.DELETE);
		assertAccount(rows.get(0), 1, "ann", "10.50", true);
		assertAccount(rows.get(1), 2, "bob", "3.00", false);
		assertAccount(rows.get(2), 1, "ann", "10.50", true);
		assertAccount(rows.get(3), 1, "ann", "12.00", true);
		assertAccount(rows.get(4), 2, "bob", "3.00", false);
		List<String> ops = new ArrayList<>();
		for (ConsumerRecord<byte[], byte[]> record : records) {
			JsonNode envelope = json.readTree(record.value());
			ops.add(envelope.get("op").stringValue());
			JsonNode source = envelope.get("source");
			assertThat(source.get("lsn").longValue())
				.isEqualTo(Lsn.parse(KafkaRelayIntegrationTests.header(record, "postlog-commit-lsn")).value());
			assertThat(source.get("db").stringValue()).isEqualTo(database.name());
			assertThat(source.get("schema").stringValue()).isEqualTo("public");
			assertThat(source.get("table").stringValue()).isEqualTo("accounts");
			assertThat(source.get("txId").longValue()).isPositive();
			assertThat(source.get("ts_ms").longValue()).isPositive();
		}
		assertThat(ops)
			.containsExactlyElementsOf(List.of("c", "c", "u", "d", "t").subList(0, expectedRecords(database)));
	}

	@Test
	void cloudEventsInBothModesAreReadByTheCloudEventsSdkWithTheChangeIdAsEventId(PostgresDatabase database)
			throws Exception {
		createAccounts(database, "ce_accounts");
		KafkaRelay binary = relay(database, "relay_ce_binary", CloudEventsMode.BINARY);
		KafkaRelay structured = relay(database, "relay_ce_structured", CloudEventsMode.STRUCTURED);
		binary.start();
		structured.start();
		try {
			writeAccounts(database, "ce_accounts");
			for (String topic : List.of("relay_ce_binary.ce_accounts", "relay_ce_structured.ce_accounts")) {
				List<ConsumerRecord<byte[], byte[]>> records = broker.readAll(topic, expectedRecords(database),
						Duration.ofSeconds(60));
				assertThat(records).as(topic).hasSize(expectedRecords(database));
				List<String> types = new ArrayList<>();
				try (CloudEventDeserializer deserializer = new CloudEventDeserializer()) {
					for (ConsumerRecord<byte[], byte[]> record : records) {
						CloudEvent event = deserializer.deserialize(topic, record.headers(), record.value());
						String id = KafkaRelayIntegrationTests.header(record, "postlog-id");
						assertThat(event.getId()).isEqualTo(id);
						assertThat(event.getSource().toString()).startsWith("/postlog/relay_ce_");
						assertThat(event.getSubject()).isEqualTo("public.ce_accounts");
						assertThat(event.getDataContentType()).isEqualTo("application/json");
						assertThat(json.readTree(event.getData().toBytes()).get("id").stringValue()).isEqualTo(id);
						types.add(event.getType());
					}
				}
				assertThat(types).as(topic)
					.containsExactlyElementsOf(List
						.of("io.postlog.change.insert", "io.postlog.change.insert", "io.postlog.change.update",
								"io.postlog.change.delete", "io.postlog.change.truncate")
						.subList(0, expectedRecords(database)));
			}
		}
		finally {
			binary.stop();
			structured.stop();
		}
	}

	/**
	 * Returns how many records {@link #writeAccounts} makes: pgoutput sends TRUNCATE from
	 * PostgreSQL 11.
	 */
	private static int expectedRecords(PostgresDatabase database) {
		return (database.serverVersion() >= 110000) ? 5 : 4;
	}

	private static void createAccounts(PostgresDatabase database, String table) throws Exception {
		database.execute(
				"CREATE TABLE " + table + " (id int PRIMARY KEY, name text, balance numeric(10,2), active bool)",
				"ALTER TABLE " + table + " REPLICA IDENTITY FULL");
	}

	private static void writeAccounts(PostgresDatabase database, String table) throws Exception {
		database.execute("INSERT INTO " + table + " VALUES (1, 'ann', 10.50, true), (2, 'bob', 3.00, false)",
				"UPDATE " + table + " SET balance = 12.00 WHERE id = 1", "DELETE FROM " + table + " WHERE id = 2",
				"TRUNCATE " + table);
	}

	private static KafkaRelay relay(PostgresDatabase database, String slot, CloudEventsMode mode) {
		return broker.relay(database, slot)
			.tables(List.of(TableId.parse("ce_accounts")))
			.topic(slot + ".{table}")
			.format(RelayFormat.CLOUDEVENTS)
			.cloudEventsMode(mode)
			.build();
	}

	private static void assertAccount(RowData row, int id, String name, String balance, boolean active) {
		assertThat(row.getInt(0)).isEqualTo(id);
		assertThat(row.getString(1).toString()).isEqualTo(name);
		assertThat(row.getDecimal(2, 10, 2).toBigDecimal()).isEqualTo(new BigDecimal(balance));
		assertThat(row.getBoolean(3)).isEqualTo(active);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RelayApplication {

	}

}
