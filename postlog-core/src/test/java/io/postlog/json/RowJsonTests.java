package io.postlog.json;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import io.postlog.Row;
import io.postlog.UnchangedToast;
import io.postlog.types.Interval;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RowJsonTests {

	@Test
	void writesEachValueKindAsDocumented() {
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("id", 7L);
		values.put("flag", true);
		values.put("total", new BigDecimal("12.50"));
		values.put("ratio", 0.5d);
		values.put("nan", Double.NaN);
		values.put("inf", Float.NEGATIVE_INFINITY);
		values.put("name", "a \"quoted\"\\ line\n");
		values.put("data", new byte[] { 0x0a, 0x1b });
		values.put("uuid", UUID.fromString("00000000-0000-0000-0000-000000000001"));
		values.put("day", LocalDate.of(2024, 2, 29));
		values.put("span", new Interval(1, 2, 3L));
		values.put("tags", Arrays.asList("x", null, List.of(1, 2)));
		values.put("missing", null);
		values.put("toasted", UnchangedToast.INSTANCE);
		assertThat(RowJson.row(Row.of(values))).isEqualTo("{\"id\":7,\"flag\":true,\"total\":\"12.50\",\"ratio\":0.5,"
				+ "\"nan\":\"NaN\",\"inf\":\"-Infinity\",\"name\":\"a \\\"quoted\\\"\\\\ line\\n\",\"data\":\"Chs=\","
				+ "\"uuid\":\"00000000-0000-0000-0000-000000000001\",\"day\":\"2024-02-29\","
				+ "\"span\":{\"months\":1,\"days\":2,\"microseconds\":3},\"tags\":[\"x\",null,[1,2]],\"missing\":null}");
	}

	@Test
	void writesOnlyTheNamedColumnsThatTheRowHas() {
		Row row = Row.of(Map.of("id", 1, "name", "x"));
		assertThat(RowJson.row(row, List.of("id", "absent"))).isEqualTo("{\"id\":1}");
	}

	@Test
	void numericKeepsItsExactDecimalTextAndScale() {
		assertThat(RowJson.value(new BigDecimal("123456789012345678901234567890.000000001")))
			.isEqualTo("\"123456789012345678901234567890.000000001\"");
		assertThat(RowJson.value(new BigDecimal("1E+3"))).isEqualTo("\"1000\"");
		assertThat(RowJson.value(new BigDecimal("0.000"))).isEqualTo("\"0.000\"");
		assertThat(RowJson.value(Double.POSITIVE_INFINITY)).isEqualTo("\"Infinity\"");
	}

	@Test
	void integersAndBooleansAreJsonNumbersAndBooleans() {
		assertThat(RowJson.value(Long.MIN_VALUE)).isEqualTo("-9223372036854775808");
		assertThat(RowJson.value(Integer.MAX_VALUE)).isEqualTo("2147483647");
		assertThat(RowJson.value((short) -32768)).isEqualTo("-32768");
		assertThat(RowJson.value(false)).isEqualTo("false");
	}

	@Test
	void floatsAreTheShortestNumberThatReadsBackToTheSameValue() {
		assertThat(RowJson.value(0.1f)).isEqualTo("0.1");
		assertThat(RowJson.value(0.1d)).isEqualTo("0.1");
		assertThat(RowJson.value(Float.NaN)).isEqualTo("\"NaN\"");
	}

	@Test
	void controlCharactersAreEscaped() {
		assertThat(RowJson.value("\b\f\r\t\u0001\u001f")).isEqualTo("\"\\b\\f\\r\\t\\u0001\\u001F\"");
	}

	@Test
	void infinitiesOfDatesAndTimesArePostgresWords() {
		assertThat(RowJson.value(LocalDate.MAX)).isEqualTo("\"infinity\"");
		assertThat(RowJson.value(OffsetDateTime.MIN)).isEqualTo("\"-infinity\"");
		assertThat(RowJson.value(LocalTime.MAX)).isEqualTo("\"24:00:00\"");
		assertThat(RowJson.value(OffsetDateTime.of(2024, 1, 1, 10, 0, 0, 123_456_000, ZoneOffset.UTC)))
			.isEqualTo("\"2024-01-01T10:00:00.123456Z\"");
	}

	@Test
	void timestamptzIsWrittenAsTheIsoFormatterWritesIt() {
		List<OffsetDateTime> times = new ArrayList<>(List.of(OffsetDateTime.of(1, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC),
				OffsetDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_000, ZoneOffset.UTC),
				OffsetDateTime.of(2024, 2, 29, 0, 0, 0, 500_000_000, ZoneOffset.UTC),
				OffsetDateTime.of(2024, 1, 1, 0, 0, 1, 1_000, ZoneOffset.UTC),
				OffsetDateTime.of(2024, 1, 1, 0, 0, 1, 1, ZoneOffset.UTC),
				OffsetDateTime.of(10000, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC),
				OffsetDateTime.of(-1, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC),
				OffsetDateTime.of(2024, 1, 1, 0, 0, 0, 0, ZoneOffset.ofHours(2))));
		long seed = System.nanoTime();
		Random random = new Random(seed);
		for (int i = 0; i < 10_000; i++) {
			long second = random.nextLong(-62_135_596_800L, 253_402_300_800L);
			int nano = switch (i % 3) {
				case 0 -> 0;
				case 1 -> random.nextInt(1_000_000) * 1_000;
				default -> random.nextInt(1_000_000_000);
			};
			times.add(OffsetDateTime.ofInstant(Instant.ofEpochSecond(second, nano), ZoneOffset.UTC));
		}
		for (OffsetDateTime time : times) {
			assertThat(RowJson.value(time)).as("%s (seed %d)", time, seed)
				.isEqualTo("\"" + DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(time) + "\"");
		}
	}

}
