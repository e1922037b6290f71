package io.postlog.pgoutput;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.postlog.Row;
import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.pgoutput.PgOutputMessage.Relation;
import io.postlog.types.PgType;
import io.postlog.types.ValueDecoders;
import io.postlog.types.ValueDecodingException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whatever text or bytes a column of a built-in type carries, {@link RowDecoder} gives a
 * row: the decoded value, or, where the type's decoder calls the value malformed, the raw
 * form ({@code String} of the text, the bytes as sent). Text is fuzzed from the forms the
 * server prints under every setting that changes them.
 */
class RowDecoderFallbackPropertyTests {

	private static final ValueDecoders VALUES = ValueDecoders.standard();

	private static final List<Integer> OIDS = builtinOids();

	private static final List<String> SEEDS = List.of("t", "-32768", "4294967295", "3.14159265358979", "-1.5e-300",
			"NaN", "-Infinity", "12345.6789", "héllo", "\\x00ff10", "\\000\\377abc",
			"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "2024-02-29", "0001-01-01 BC", "13:45:56.123456", "24:00:00",
			"13:45:56.123456+02", "23:59:59-12:30:15", "2024-02-29 13:45:56.123456", "2024-02-29 13:45:56.123456+05:30",
			"1900-01-01 00:00:00+00:53:28", "infinity", "-infinity", "1 year 2 mons -3 days +04:05:06.789",
			"@ 1 year 2 mons -3 days 4 hours 5 mins 6 secs ago", "+1-2 -3 +4:05:06", "-3 4:05:06",
			"P1Y2M-3DT4H5M6.789S", "PT0S", "192.168.1.10/24", "2001:db8::/32", "08:00:2b:01:02:03",
			"08:00:2b:01:02:03:04:05", "$12.34", "-$92,233,720,368,547,758.08", "1010", "{1,2,NULL,4}", "{{1,2},{3,4}}",
			"[0:1]={a,b}", "{\"a\",\"b c\",NULL,\"d\\\"e\"}", "1 2 3", "", "{\"1 2\",\"3\"}", "{\"b\": {\"c\": null}}",
			"02/29/2024 13:45:56.123456 CET", "Thu Feb 29 13:45:56.123456 2024 CET", "29.02.2024 13:45:56.123456 CET");

	@Property(tries = 20000)
	void textOfAnyFormIsDecodedOrDeliveredRaw(@ForAll("oids") int oid, @ForAll("texts") String text) {
		byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
		Object value = decode(oid, new TupleValue.Text(utf8));
		if (malformed(() -> VALUES.decodeText(oid, utf8))) {
			assertThat(value).isEqualTo(text);
		}
	}

	@Property(tries = 10000)
	void bytesOfAnyFormAreDecodedOrDeliveredRaw(@ForAll("oids") int oid, @ForAll @Size(max = 40) byte[] bytes) {
		Object value = decode(oid, new TupleValue.Binary(bytes.clone()));
		if (malformed(() -> VALUES.decodeBinary(oid, bytes))) {
			assertThat(value).isEqualTo(bytes);
		}
	}

	@Provide
	Arbitrary<Integer> oids() {
		return Arbitraries.of(OIDS);
	}

	@Provide
	Arbitrary<String> texts() {
		Arbitrary<String> seeds = Arbitraries.of(SEEDS);
		Arbitrary<String> mutated = Combinators
			.combine(seeds, Arbitraries.integers().between(0, 60), Arbitraries.chars().ascii(),
					Arbitraries.integers().between(0, 2))
			.as(RowDecoderFallbackPropertyTests::mutate);
		return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(2, seeds), net.jqwik.api.Tuple.of(6, mutated),
				net.jqwik.api.Tuple.of(2, Arbitraries.strings().ofMaxLength(30)));
	}

	private static String mutate(String seed, int at, char c, int kind) {
		if (seed.isEmpty()) {
			return String.valueOf(c);
		}
		int index = at % seed.length();
		return switch (kind) {
			case 0 -> seed.substring(0, index) + c + seed.substring(index + 1);
			case 1 -> seed.substring(0, index) + c + seed.substring(index);
			default -> seed.substring(0, index) + seed.substring(index + 1);
		};
	}

	/** One relation per type, so that each column warns once per format, not per try. */
	private static final RowDecoder ROWS = new RowDecoder(VALUES);

	static {
		for (int oid : OIDS) {
			ROWS.relation(new Relation(null, oid, "public", "fuzz", 'd', List.of(new Column(1, "c", oid, -1))));
		}
	}

	private static Object decode(int oid, TupleValue value) {
		Row row = ROWS.newRow(oid, new TupleData(List.of(value)));
		return row.get("c");
	}

	private static boolean malformed(Runnable decode) {
		try {
			decode.run();
			return false;
		}
		catch (ValueDecodingException ex) {
			return true;
		}
	}

	private static List<Integer> builtinOids() {
		List<Integer> oids = new ArrayList<>();
		for (Field field : PgType.class.getFields()) {
			try {
				oids.add(field.getInt(null));
			}
			catch (IllegalAccessException ex) {
				throw new IllegalStateException(ex);
			}
		}
		return oids;
	}

}
