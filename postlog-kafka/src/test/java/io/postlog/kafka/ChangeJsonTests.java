package io.postlog.kafka;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.UnchangedToast;
import io.postlog.types.Interval;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JSON of changes and values, for every Java type of the Values table.
 */
class ChangeJsonTests {

	@Test
	void valuesOfEveryKindMapToLosslessJson() {
		assertThat(json(true)).isEqualTo("true");
		assertThat(json((short) 7)).isEqualTo("7");
		assertThat(json(2_147_483_647)).isEqualTo("2147483647");
		assertThat(json(9_007_199_254_740_993L)).isEqualTo("9007199254740993");
		assertThat(json(1.5f)).isEqualTo("1.5");
		assertThat(json(0.1)).isEqualTo("0.1");
		assertThat(json(Double.NaN)).isEqualTo("\"NaN\"");
		assertThat(json(Float.POSITIVE_INFINITY)).isEqualTo("\"Infinity\"");
		assertThat(json(Double.NEGATIVE_INFINITY)).isEqualTo("\"-Infinity\"");
		assertThat(json(new BigDecimal("12.50"))).isEqualTo("\"12.50\"");
		assertThat(json(new BigDecimal("123456789012345678901234567890.000000001")))
			.isEqualTo("\"123456789012345678901234567890.000000001\"");
		assertThat(json("a \"quoted\" text")).isEqualTo("\"a \\\"quoted\\\" text\"");
		assertThat(json(new byte[] { 0, 1, (byte) 0xff })).isEqualTo("\"AAH/\"");
		assertThat(json(UUID.fromString("6f1c1d6e-4b8e-4d0e-9a55-0d7b1f2b9c01")))
			.isEqualTo("\"6f1c1d6e-4b8e-4d0e-9a55-0d7b1f2b9c01\"");
		assertThat(json(LocalDate.of(2024, 2, 29))).isEqualTo("\"2024-02-29\"");
		assertThat(json(LocalDate.of(-43, 3, 15))).isEqualTo("\"-0043-03-15\"");
		assertThat(json(LocalDate.MAX)).isEqualTo("\"infinity\"");
		assertThat(json(LocalDate.MIN)).isEqualTo("\"-infinity\"");
		assertThat(json(LocalTime.of(10, 0))).isEqualTo("\"10:00:00\"");
		assertThat(json(LocalTime.of(10, 0, 0, 500_000))).isEqualTo("\"10:00:00.0005\"");
		assertThat(json(LocalTime.MAX)).isEqualTo("\"24:00:00\"");
		assertThat(json(OffsetTime.of(10, 0, 0, 0, ZoneOffset.ofHours(2)))).isEqualTo("\"10:00:00+02:00\"");
		assertThat(json(LocalDateTime.of(2024, 1, 1, 0, 0))).isEqualTo("\"2024-01-01T00:00:00\"");
		assertThat(json(LocalDateTime.MAX)).isEqualTo("\"infinity\"");
		assertThat(json(OffsetDateTime.of(2024, 1, 1, 10, 0, 0, 123_456_000, ZoneOffset.UTC)))
			.isEqualTo("\"2024-01-01T10:00:00.123456Z\"");
		assertThat(json(OffsetDateTime.MIN)).isEqualTo("\"-infinity\"");
		assertThat(json(new Interval(14, 3, 4_000_005L)))
			.isEqualTo("{\"months\":14,\"days\":3,\"microseconds\":4000005}");
		assertThat(json(Arrays.asList(List.of(1, 2), Arrays.asList(3, null)))).isEqualTo("[[1,2],[3,null]]");
		assertThat(json(null)).isEqualTo("null");
	}

	@Test
	void changeHasEveryFieldAndNamesUnchangedToastColumnsInsteadOfGuessingTheirValues() {
		Map<String, Object> before = new LinkedHashMap<>();
		before.put("id", 42L);
		Map<String, Object> after = new LinkedHashMap<>();
		after.put("id", 42L);
		after.put("note", UnchangedToast.INSTANCE);
		after.put("total", new BigDecimal("13.00"));
		after.put("deleted_at", null);
		Change change = new Change(Operation.UPDATE, new TableId("shop", "orders"), Row.of(before), Row.of(after), 771,
				Lsn.parse("0/16B374D"), Instant.parse("2026-01-02T03:04:05.123456Z"), 3, "postlog_kafka/0/16B374D/3");
		assertThat(new String(ChangeJson.change(change), StandardCharsets.UTF_8))
			.isEqualTo("{\"op\":\"UPDATE\",\"table\":{\"schema\":\"shop\",\"name\":\"orders\"},\"before\":{\"id\":42},"
					+ "\"after\":{\"id\":42,\"total\":\"13.00\",\"deleted_at\":null},\"commitLsn\":\"0/16B374D\","
					+ "\"xid\":771,\"commitTime\":\"2026-01-02T03:04:05.123456Z\","
					+ "\"id\":\"postlog_kafka/0/16B374D/3\",\"unchangedToast\":[\"note\"]}");
	}

	@Test
	void deleteHasNoAfterRowAndKeyColumnsFollowTheGivenOrder() {
		Map<String, Object> key = new LinkedHashMap<>();
		key.put("tenant", "t1");
		key.put("id", 7);
		Change change = new Change(Operation.DELETE, new TableId("public", "items"), Row.of(key), null, 5,
				Lsn.parse("1/0"), Instant.parse("2026-01-02T03:04:05Z"), 0, "s/1/0/0");
		assertThat(new String(ChangeJson.change(change), StandardCharsets.UTF_8)).contains("\"after\":null")
			.contains("\"before\":{\"tenant\":\"t1\",\"id\":7}");
		assertThat(new String(ChangeJson.columns(change.before(), List.of("tenant", "id")), StandardCharsets.UTF_8))
			.isEqualTo("{\"tenant\":\"t1\",\"id\":7}");
	}

	@Test
	void documentsWrittenOneAfterAnotherOnAThreadHoldOnlyTheirOwnText() {
		String large = "x".repeat(100_000);
		Change big = new Change(Operation.INSERT, new TableId("public", "notes"), null,
				Row.of(Map.of("id", 1L, "body", large)), 9, Lsn.parse("2/0"), Instant.parse("2026-01-02T03:04:05Z"), 0,
				"s/2/0/0");
		Change small = new Change(Operation.INSERT, new TableId("public", "notes"), null, Row.of(Map.of("id", 2L)), 9,
				Lsn.parse("2/0"), Instant.parse("2026-01-02T03:04:05Z"), 1, "s/2/0/1");
		Change medium = new Change(Operation.INSERT, new TableId("public", "notes"), null,
				Row.of(Map.of("id", 3L, "body", "y".repeat(5_000))), 9, Lsn.parse("2/0"),
				Instant.parse("2026-01-02T03:04:05Z"), 2, "s/2/0/2");
		// A large document, whose buffer is let go, and a medium one, whose buffer is
		// kept: what follows each holds none of its text.
		assertThat(new String(ChangeJson.change(big), StandardCharsets.UTF_8)).contains("\"body\":\"" + large + "\"");
		assertThat(new String(ChangeJson.columns(big.after(), List.of("id")), StandardCharsets.UTF_8))
			.isEqualTo("{\"id\":1}");
		assertThat(new String(ChangeJson.change(medium), StandardCharsets.UTF_8)).contains("y".repeat(5_000));
		assertThat(new String(ChangeJson.columns(medium.after(), List.of("id")), StandardCharsets.UTF_8))
			.isEqualTo("{\"id\":3}");
		assertThat(new String(ChangeJson.change(small), StandardCharsets.UTF_8))
			.isEqualTo("{\"op\":\"INSERT\",\"table\":{\"schema\":\"public\",\"name\":\"notes\"},\"before\":null,"
					+ "\"after\":{\"id\":2},\"commitLsn\":\"2/0\",\"xid\":9,\"commitTime\":\"2026-01-02T03:04:05Z\","
					+ "\"id\":\"s/2/0/1\"}");
	}

	private static String json(Object value) {
		List<Object> holder = new ArrayList<>();
		holder.add(value);
		return new String(ChangeJson.value(holder.get(0)), StandardCharsets.UTF_8);
	}

}
