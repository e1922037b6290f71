package io.postlog.json;

import java.util.LinkedHashMap;
import java.util.Map;

import io.postlog.Row;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RowJson} writes text in runs and escapes only what JSON requires: checked
 * against the plainest escaping there is, one character at a time, for text dense with
 * the characters that need escapes and for any text at all, alone and as column names and
 * values of a row.
 */
class RowJsonStringPropertyTests {

	@Property
	void textIsEscapedAsCharacterByCharacter(@ForAll("escapeDense") String text) {
		assertThat(RowJson.value(text)).isEqualTo(oneByOne(text));
	}

	@Property
	void anyTextIsEscapedAsCharacterByCharacter(@ForAll("anyText") String text) {
		assertThat(RowJson.value(text)).isEqualTo(oneByOne(text));
	}

	@Property
	void rowsEscapeTheirNamesAndValues(@ForAll("escapeDense") String name, @ForAll("anyText") String value) {
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("id", 1);
		values.put(name.isEmpty() ? "x" : name, value);
		Row row = Row.of(values);
		StringBuilder expected = new StringBuilder("{\"id\":1,");
		expected.append(oneByOne(name.isEmpty() ? "x" : name)).append(':').append(oneByOne(value)).append('}');
		assertThat(RowJson.row(row)).isEqualTo(expected.toString());
		StringBuilder appended = new StringBuilder("prefix ");
		RowJson.row(appended, row, row.columns());
		assertThat(appended).hasToString("prefix " + expected);
	}

	@Provide
	Arbitrary<String> escapeDense() {
		return Arbitraries.strings().withChars("\"\\\b\f\n\r\t\u0000\u0001\u001f\u007f é€/ab").ofMaxLength(24);
	}

	@Provide
	Arbitrary<String> anyText() {
		return Arbitraries.strings().all().ofMaxLength(48);
	}

	/** JSON's escapes, a character at a time, as RFC 8259 section 7 lists them. */
	private static String oneByOne(String text) {
		StringBuilder json = new StringBuilder("\"");
		for (char c : text.toCharArray()) {
			switch (c) {
				case '"' -> json.append("\\\"");
				case '\\' -> json.append("\\\\");
				case '\b' -> json.append("\\b");
				case '\f' -> json.append("\\f");
				case '\n' -> json.append("\\n");
				case '\r' -> json.append("\\r");
				case '\t' -> json.append("\\t");
				default -> json.append((c < 0x20) ? String.format("\\u%04X", (int) c) : String.valueOf(c));
			}
		}
		return json.append('"').toString();
	}

}
