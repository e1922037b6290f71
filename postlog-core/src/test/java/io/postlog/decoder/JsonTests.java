package io.postlog.decoder;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Strings of the strict JSON reader: plain ASCII ones read without unescaping, the others
 * unescaped and checked, with the same results and the same refusals either way.
 */
class JsonTests {

	@Test
	void plainAsciiStringsAreReadAsTheyStand() {
		Json.Members members = (Json.Members) parse("{\"name\":\"b\",\"value\":\"row 1 please deliver\",\"e\":\"\"}");
		assertThat(members.members().keySet()).containsExactly("name", "value", "e");
		assertThat(text(members, "value")).isEqualTo("row 1 please deliver");
		assertThat(text(members, "e")).isEmpty();
	}

	@Test
	void escapesAndNonAsciiAreUnescapedAndKept() {
		Json.Members members = (Json.Members) parse(
				"{\"a\":\"say \\\"hi\\\"\\n\\u00e9\\ud83d\\ude00\",\"b\":\"caf\u00e9 \u20ac\",\"c\":\"back\\\\slash\"}");
		assertThat(text(members, "a")).isEqualTo("say \"hi\"\n\u00e9\ud83d\ude00");
		assertThat(text(members, "b")).isEqualTo("caf\u00e9 \u20ac");
		assertThat(text(members, "c")).isEqualTo("back\\slash");
	}

	@Test
	void badStringsAreRefusedOnEitherPath() {
		assertThatExceptionOfType(PluginDecodingException.class).isThrownBy(() -> parse("{\"a\":\"open"))
			.withMessageContaining("unterminated string");
		assertThatExceptionOfType(PluginDecodingException.class).isThrownBy(() -> parse("{\"a\":\"tab\there\"}"))
			.withMessageContaining("control character in a string");
		assertThatExceptionOfType(PluginDecodingException.class).isThrownBy(() -> parse("{\"a\":\"bad \\q\"}"))
			.withMessageContaining("invalid escape");
		byte[] invalidUtf8 = { '{', '"', 'a', '"', ':', '"', (byte) 0xC3, '(', '"', '}' };
		assertThatExceptionOfType(PluginDecodingException.class)
			.isThrownBy(() -> Json.parse(invalidUtf8, "a test document"))
			.withMessageContaining("string is not valid UTF-8");
		assertThatExceptionOfType(PluginDecodingException.class).isThrownBy(() -> parse("{\"a\":\"x\",\"a\":\"y\"}"))
			.withMessageContaining("duplicate member");
	}

	@Test
	void aMessagesContentIsKeptByteForByteEvenWhenNotUtf8() {
		byte[] document = { '{', '"', 'c', 'o', 'n', 't', 'e', 'n', 't', '"', ':', '"', (byte) 0xFF, 'x', '"', '}' };
		Json.Members members = (Json.Members) Json.parse(document, "a test document");
		assertThat(((Json.Text) members.members().get("content")).bytes()).containsExactly((byte) 0xFF, 'x');
	}

	private static Json.Value parse(String json) {
		return Json.parse(json.getBytes(StandardCharsets.UTF_8), "a test document");
	}

	private static String text(Json.Members members, String name) {
		return ((Json.Text) members.members().get(name)).string();
	}

}
