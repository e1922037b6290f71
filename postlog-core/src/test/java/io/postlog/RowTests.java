package io.postlog;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RowTests {

	private static final Row.Columns KEY = Row.keyColumns(List.of("id"), List.of("id", "name", "note"));

	@Test
	void findReturnsThePresentValue() {
		Row row = Row.of(Map.of("id", 1, "name", "n"));
		assertThat(row.find("name")).contains("n");
		assertThat(row.isKeyOnly()).isFalse();
	}

	@Test
	void findIsEmptyForAnAbsentColumnAndForSqlNull() {
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("id", 1);
		values.put("note", null);
		Row row = Row.of(values);
		assertThat(row.find("name")).isEmpty();
		assertThat(row.find("note")).isEmpty();
		assertThat(row.contains("note")).isTrue();
		assertThat(row.contains("name")).isFalse();
	}

	@Test
	void keyOnlyImageHoldsTheKeyAndSaysSo() {
		Row row = Row.of(KEY, new Object[] { 7 });
		assertThat(row.isKeyOnly()).isTrue();
		assertThat(row.columns()).containsExactly("id");
		assertThat(row.get("id")).isEqualTo(7);
		assertThat(row.find("name")).isEmpty();
	}

	@Test
	void getOfAColumnAKeyOnlyImageLeftOutExplainsKeyOnlyImages() {
		Row row = Row.of(KEY, new Object[] { 7 });
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> row.get("name"))
			.withMessageStartingWith("Column 'name' is not in this key-only row image (columns [id])")
			.withMessageContaining("REPLICA IDENTITY FULL")
			.withMessageContaining("Row.find");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> row.get("name", String.class))
			.withMessageStartingWith("Column 'name' is not in this key-only row image");
	}

	@Test
	void getOfAColumnTheTableDoesNotHaveSaysSo() {
		Row keyOnly = Row.of(KEY, new Object[] { 7 });
		Row full = Row.of(Map.of("id", 7));
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> keyOnly.get("nmae"))
			.withMessage("No column 'nmae' in row with columns [id]");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> full.get("name"))
			.withMessage("No column 'name' in row with columns [id]");
	}

	@Test
	void keyOnlyImageEqualsARowOfTheSameColumnsAndValues() {
		assertThat(Row.of(KEY, new Object[] { 7 })).isEqualTo(Row.of(Map.of("id", 7)));
		assertThat(Row.of(KEY, new Object[] { 7 })).hasToString("Row[id]");
	}

}
