package io.postlog.spring;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
		assertThat(RowJson.write(Row.of(values))).isEqualTo("{\"id\":7,\"flag\":true,\"total\":12.50,\"ratio\":0.5,"
				+ "\"nan\":\"NaN\",\"inf\":\"-Infinity\",\"name\":\"a \\\"quoted\\\"\\\\ line\\n\",\"data\":\"\\\\x0a1b\","
				+ "\"uuid\":\"00000000-0000-0000-0000-000000000001\",\"day\":\"2024-02-29\","
				+ "\"span\":{\"months\":1,\"days\":2,\"microseconds\":3},\"tags\":[\"x\",null,[1,2]],\"missing\":null}");
	}

	@Test
	void writesOnlyTheNamedColumnsThatTheRowHas() {
		Row row = Row.of(Map.of("id", 1, "name", "x"));
		assertThat(RowJson.write(row, List.of("id", "absent"))).isEqualTo("{\"id\":1}");
	}

}
