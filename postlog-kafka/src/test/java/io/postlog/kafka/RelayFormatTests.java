package io.postlog.kafka;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.debezium.DebeziumJsonDeserializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.RowKind;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;

/**
 * The relay's formats read back by real readers of them, without a broker: Debezium
 * envelopes by Flink's {@code debezium-json} deserializer, CloudEvents by the CloudEvents
 * SDK's Kafka deserializer, in both modes.
 */
class RelayFormatTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final TableId ACCOUNTS = new TableId("shop", "accounts");

	private static final Instant COMMIT = Instant.parse("2026-01-02T03:04:05.123456Z");

	private static final DataType ACCOUNT = DataTypes.ROW(DataTypes.FIELD("id", DataTypes.INT()),
			DataTypes.FIELD("name", DataTypes.STRING()), DataTypes.FIELD("balance", DataTypes.DECIMAL(10, 2)),
			DataTypes.FIELD("active", DataTypes.BOOLEAN()),
			DataTypes.FIELD("opened_at", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6)));

	private final ChangeFormatter debezium = new DebeziumJson("relay", () -> "shopdb");

	@Test
	void debeziumEnvelopeOfEachOperationIsReadByFlinksDebeziumJsonFormat() throws Exception {
		Row first = account(1, "ann", "10.50", true);
		Row second = account(1, "ann", "12.00", false);
		assertThat(flink(change(Operation.SNAPSHOT, null, first))).singleElement().satisfies((row) -> {
			assertThat(row.getRowKind()).isEqualTo(RowKind.INSERT);
			assertAccount(row, 1, "ann", "10.50", true);
		});
		assertThat(flink(change(Operation.INSERT, null, first))).singleElement().satisfies((row) -> {
			assertThat(row.getRowKind()).isEqualTo(RowKind.INSERT);
			assertAccount(row, 1, "ann", "10.50", true);
		});
		List<RowData> update = flink(change(Operation.UPDATE, first, second));
		assertThat(update).extracting(RowData::getRowKind).containsExactly(RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER);
		assertAccount(update.get(0), 1, "ann", "10.50", true);
		assertAccount(update.get(1), 1, "ann", "12.00", false);
		assertThat(flink(change(Operation.DELETE, second, null))).singleElement().satisfies((row) -> {
			assertThat(row.getRowKind()).isEqualTo(RowKind.DELETE);
			assertAccount(row, 1, "ann", "12.00", false);
		});
	}

	@Test
	void debeziumEnvelopeHasTheSourceFieldsAndDebeziumsOperationCodes() {
		Change update = change(Operation.UPDATE, account(1, "ann", "10.50", true), account(1, "ann", "12.00", true));
		JsonNode envelope = json.readTree(this.debezium.value(update, new RecordHeaders()));
		JsonNode source = envelope.get("source");
		assertThat(source.get("connector").stringValue()).isEqualTo("postgresql");
		assertThat(source.get("name").stringValue()).isEqualTo("relay");
		assertThat(source.get("db").stringValue()).isEqualTo("shopdb");
		assertThat(source.get("schema").stringValue()).isEqualTo("shop");
		assertThat(source.get("table").stringValue()).isEqualTo("accounts");
		assertThat(source.get("txId").longValue()).isEqualTo(771);
		assertThat(source.get("lsn").longValue()).isEqualTo(Lsn.parse("0/16B374D").value());
		assertThat(source.get("ts_ms").longValue()).isEqualTo(COMMIT.toEpochMilli());
		assertThat(source.get("snapshot").stringValue()).isEqualTo("false");
		assertThat(envelope.get("op").stringValue()).isEqualTo("u");
		assertThat(envelope.get("ts_ms").longValue()).isGreaterThanOrEqualTo(COMMIT.toEpochMilli());
		assertThat(opOf(change(Operation.INSERT, null, account(1, "a", "1.00", true)))).isEqualTo("c");
		assertThat(opOf(change(Operation.DELETE, account(1, "a", "1.00", true), null))).isEqualTo("d");
		assertThat(opOf(change(Operation.SNAPSHOT, null, account(1, "a", "1.00", true)))).isEqualTo("r");
		Change truncate = change(Operation.TRUNCATE, null, null);
		JsonNode truncated = json.readTree(this.debezium.value(truncate, new RecordHeaders()));
		assertThat(truncated.get("op").stringValue()).isEqualTo("t");
		assertThat(truncated.get("before").isNull()).isTrue();
		assertThat(truncated.get("after").isNull()).isTrue();
		// Flink's debezium-json knows no truncate: it refuses one unless told to skip
		// what it cannot parse (debezium-json.ignore-parse-errors).
		assertThatIOException().isThrownBy(() -> flink(truncate, false)).withMessageContaining("\"t\"");
	}

	@Test
	void cloudEventsInBinaryModeAreReadByTheCloudEventsSdkWithTheChangeIdAsEventId() {
		Change insert = change(Operation.INSERT, null, account(1, "ann", "10.50", true));
		CloudEvent event = cloudEvent(CloudEventsMode.BINARY, insert, "application/json");
		assertEvent(event, insert);
	}

	@Test
	void cloudEventsInStructuredModeAreReadByTheCloudEventsSdkWithTheChangeIdAsEventId() {
		Change delete = change(Operation.DELETE, account(1, "ann", "10.50", true), null);
		CloudEvent event = cloudEvent(CloudEventsMode.STRUCTURED, delete,
				"application/cloudevents+json; charset=UTF-8");
		assertEvent(event, delete);
	}

	private static CloudEvent cloudEvent(CloudEventsMode mode, Change change, String contentType) {
		RecordHeaders headers = new RecordHeaders();
		byte[] value = new CloudEventsJson(mode, "relay").value(change, headers);
		assertThat(new String(headers.lastHeader("content-type").value(), StandardCharsets.UTF_8))
			.isEqualTo(contentType);
		try (CloudEventDeserializer deserializer = new CloudEventDeserializer()) {
			return deserializer.deserialize("shop.accounts", headers, value);
		}
	}

	private static void assertEvent(CloudEvent event, Change change) {
		assertThat(event.getSpecVersion().toString()).isEqualTo("1.0");
		assertThat(event.getId()).isEqualTo(change.id());
		assertThat(event.getSource().toString()).isEqualTo("/postlog/relay");
		assertThat(event.getType()).isEqualTo("io.postlog.change." + change.operation().name().toLowerCase());
		assertThat(event.getSubject()).isEqualTo("shop.accounts");
		assertThat(event.getTime()).isEqualTo(OffsetDateTime.ofInstant(COMMIT, ZoneOffset.UTC));
		assertThat(event.getDataContentType()).isEqualTo("application/json");
		assertThat(json.readTree(event.getData().toBytes())).isEqualTo(json.readTree(ChangeJson.change(change)));
	}

	private String opOf(Change change) {
		return json.readTree(this.debezium.value(change, new RecordHeaders())).get("op").stringValue();
	}

	private List<RowData> flink(Change change) throws Exception {
		return flink(change, false);
	}

	private List<RowData> flink(Change change, boolean ignoreParseErrors) throws Exception {
		DebeziumJsonDeserializationSchema schema = new DebeziumJsonDeserializationSchema(ACCOUNT, List.of(),
				TypeInformation.of(RowData.class), false, ignoreParseErrors, TimestampFormat.ISO_8601);
		schema.open(null);
		List<RowData> rows = new ArrayList<>();
		schema.deserialize(this.debezium.value(change, new RecordHeaders()), new ListCollector<>(rows));
		return rows;
	}

	private static void assertAccount(RowData row, int id, String name, String balance, boolean active) {
		assertThat(row.getInt(0)).isEqualTo(id);
		assertThat(row.getString(1).toString()).isEqualTo(name);
		assertThat(row.getDecimal(2, 10, 2).toBigDecimal()).isEqualTo(new BigDecimal(balance));
		assertThat(row.getBoolean(3)).isEqualTo(active);
		assertThat(row.getTimestamp(4, 6).toInstant()).isEqualTo(Instant.parse("2025-06-07T08:09:10.123456Z"));
	}

	private static Row account(int id, String name, String balance, boolean active) {
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("id", id);
		values.put("name", name);
		values.put("balance", new BigDecimal(balance));
		values.put("active", active);
		values.put("opened_at", OffsetDateTime.parse("2025-06-07T08:09:10.123456Z"));
		return Row.of(values);
	}

	private static Change change(Operation operation, Row before, Row after) {
		return new Change(operation, ACCOUNTS, before, after, 771, Lsn.parse("0/16B374D"), COMMIT, 3,
				"relay/0/16B374D/3");
	}

}
