package io.postlog.types;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class ValueDecodersTests {

	private static final ValueDecoders DECODERS = ValueDecoders.standard();

	private static final LocalDate PG_EPOCH = LocalDate.of(2000, 1, 1);

	@Test
	void boolDecodesBothFormats() {
		assertThat(both(PgType.BOOL, "t", bytes(1))).isEqualTo(true);
		assertThat(both(PgType.BOOL, "f", bytes(0))).isEqualTo(false);
	}

	@Test
	void integersDecodeToTheirJavaWidths() {
		assertThat(both(PgType.INT2, "-32768", ByteBuffer.allocate(2).putShort(Short.MIN_VALUE).array()))
			.isEqualTo(Short.MIN_VALUE);
		assertThat(both(PgType.INT4, "2147483647", ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array()))
			.isEqualTo(Integer.MAX_VALUE);
		assertThat(both(PgType.INT8, "-9223372036854775808", ByteBuffer.allocate(8).putLong(Long.MIN_VALUE).array()))
			.isEqualTo(Long.MIN_VALUE);
		assertThat(both(PgType.OID, "4294967295", ByteBuffer.allocate(4).putInt(-1).array())).isEqualTo(4294967295L);
	}

	@Test
	void floatsKeepNanAndInfinities() {
		assertThat(both(PgType.FLOAT8, "NaN", ByteBuffer.allocate(8).putDouble(Double.NaN).array()))
			.isEqualTo(Double.NaN);
		assertThat(both(PgType.FLOAT8, "-Infinity", ByteBuffer.allocate(8).putDouble(Double.NEGATIVE_INFINITY).array()))
			.isEqualTo(Double.NEGATIVE_INFINITY);
		assertThat(both(PgType.FLOAT4, "Infinity", ByteBuffer.allocate(4).putFloat(Float.POSITIVE_INFINITY).array()))
			.isEqualTo(Float.POSITIVE_INFINITY);
		assertThat(both(PgType.FLOAT4, "1.1", ByteBuffer.allocate(4).putFloat(1.1f).array())).isEqualTo(1.1f);
		assertThat(both(PgType.FLOAT8, "1e+300", ByteBuffer.allocate(8).putDouble(1e300).array())).isEqualTo(1e300);
	}

	@ParameterizedTest
	@CsvSource({ "1234.5678", "-0.0001", "0.00", "0", "1.50", "10000", "-99999999.99999999",
			"123456789012345678901234567890.123456789", "0.000000000000000000000000001", "100000000000000000000" })
	void numericDecodesToBigDecimalWithTheServersScale(String text) {
		BigDecimal expected = new BigDecimal(text);
		Object decoded = both(PgType.NUMERIC, text, numericBinary(expected));
		assertThat(decoded).isEqualTo(expected);
		assertThat(((BigDecimal) decoded).scale()).isEqualTo(expected.scale());
	}

	@Test
	void numericSpecialValuesAreDoubles() {
		assertThat(both(PgType.NUMERIC, "NaN", numericSpecial(0xC000))).isEqualTo(Double.NaN);
		assertThat(both(PgType.NUMERIC, "Infinity", numericSpecial(0xD000))).isEqualTo(Double.POSITIVE_INFINITY);
		assertThat(both(PgType.NUMERIC, "-Infinity", numericSpecial(0xF000))).isEqualTo(Double.NEGATIVE_INFINITY);
	}

	@Test
	void stringTypesDecodeToStrings() {
		for (int oid : new int[] { PgType.TEXT, PgType.VARCHAR, PgType.BPCHAR, PgType.NAME, PgType.XML, PgType.JSON }) {
			assertThat(both(oid, "zoë ☃ ", utf8("zoë ☃ "))).isEqualTo("zoë ☃ ");
			assertThat(both(oid, "", new byte[0])).isEqualTo("");
		}
	}

	@Test
	void jsonbBinaryHasAVersionByte() {
		byte[] binary = concat(bytes(1), utf8("{\"a\": [1, 2]}"));
		assertThat(both(PgType.JSONB, "{\"a\": [1, 2]}", binary)).isEqualTo("{\"a\": [1, 2]}");
		assertThatExceptionOfType(ValueDecodingException.class)
			.isThrownBy(() -> DECODERS.decodeBinary(PgType.JSONB, concat(bytes(2), utf8("{}"))));
	}

	@Test
	void charDecodesTheServersOutput() {
		assertThat(both(PgType.CHAR, "a", bytes('a'))).isEqualTo("a");
		assertThat(both(PgType.CHAR, "", bytes(0))).isEqualTo("");
		assertThat(both(PgType.CHAR, "\\351", bytes(0xE9))).isEqualTo("\\351");
	}

	@Test
	void byteaDecodesHexAndEscapeFormats() {
		byte[] expected = bytes(0, 1, 0x5C, 0x27, 0xFF, 'a');
		assertThat((byte[]) both(PgType.BYTEA, "\\x00015c27ff61", expected)).containsExactly(expected);
		assertThat((byte[]) DECODERS.decodeText(PgType.BYTEA, utf8("\\000\\001\\\\'\\377a"))).containsExactly(expected);
		assertThat((byte[]) both(PgType.BYTEA, "\\x", new byte[0])).isEmpty();
	}

	@Test
	void uuidDecodesBothFormats() {
		UUID uuid = UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
		byte[] binary = ByteBuffer.allocate(16)
			.putLong(uuid.getMostSignificantBits())
			.putLong(uuid.getLeastSignificantBits())
			.array();
		assertThat(both(PgType.UUID, uuid.toString(), binary)).isEqualTo(uuid);
	}

	@Test
	void datesIncludingBcLargeYearsAndInfinities() {
		assertThat(both(PgType.DATE, "2024-02-29", date(LocalDate.of(2024, 2, 29))))
			.isEqualTo(LocalDate.of(2024, 2, 29));
		assertThat(both(PgType.DATE, "0044-03-15 BC", date(LocalDate.of(-43, 3, 15))))
			.isEqualTo(LocalDate.of(-43, 3, 15));
		assertThat(both(PgType.DATE, "0001-02-29 BC", date(LocalDate.of(0, 2, 29)))).isEqualTo(LocalDate.of(0, 2, 29));
		assertThat(both(PgType.DATE, "4713-01-01 BC", date(LocalDate.of(-4712, 1, 1))))
			.isEqualTo(LocalDate.of(-4712, 1, 1));
		assertThat(both(PgType.DATE, "5874897-12-31", date(LocalDate.of(5874897, 12, 31))))
			.isEqualTo(LocalDate.of(5874897, 12, 31));
		assertThat(both(PgType.DATE, "infinity", ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array()))
			.isEqualTo(LocalDate.MAX);
		assertThat(both(PgType.DATE, "-infinity", ByteBuffer.allocate(4).putInt(Integer.MIN_VALUE).array()))
			.isEqualTo(LocalDate.MIN);
	}

	@Test
	void timesIncludingTwentyFourOClock() {
		LocalTime time = LocalTime.of(4, 5, 6, 789_000_000);
		assertThat(both(PgType.TIME, "04:05:06.789", int64(time.toNanoOfDay() / 1000))).isEqualTo(time);
		assertThat(both(PgType.TIME, "24:00:00", int64(86_400_000_000L))).isEqualTo(LocalTime.MAX);
		OffsetTime timetz = OffsetTime.of(time, ZoneOffset.ofHoursMinutes(-5, -30));
		byte[] binary = ByteBuffer.allocate(12).putLong(time.toNanoOfDay() / 1000).putInt(5 * 3600 + 1800).array();
		assertThat(both(PgType.TIMETZ, "04:05:06.789-05:30", binary)).isEqualTo(timetz);
		assertThat(DECODERS.decodeText(PgType.TIMETZ, utf8("04:05:06+02")))
			.isEqualTo(OffsetTime.of(4, 5, 6, 0, ZoneOffset.ofHours(2)));
	}

	@Test
	void timestampsIncludingBcLargeYearsAndInfinities() {
		LocalDateTime value = LocalDateTime.of(2024, 1, 15, 12, 34, 56, 789_000_000);
		assertThat(both(PgType.TIMESTAMP, "2024-01-15 12:34:56.789", timestamp(value))).isEqualTo(value);
		LocalDateTime bc = LocalDateTime.of(-4712, 11, 24, 0, 0, 0, 1000);
		assertThat(both(PgType.TIMESTAMP, "4713-11-24 00:00:00.000001 BC", timestamp(bc))).isEqualTo(bc);
		LocalDateTime late = LocalDateTime.of(294276, 12, 31, 23, 59, 59, 999_999_000);
		assertThat(both(PgType.TIMESTAMP, "294276-12-31 23:59:59.999999", timestamp(late))).isEqualTo(late);
		assertThat(both(PgType.TIMESTAMP, "infinity", int64(Long.MAX_VALUE))).isEqualTo(LocalDateTime.MAX);
		assertThat(both(PgType.TIMESTAMP, "-infinity", int64(Long.MIN_VALUE))).isEqualTo(LocalDateTime.MIN);
	}

	@Test
	void timestamptzIsConvertedToUtc() {
		OffsetDateTime utc = OffsetDateTime.of(2024, 1, 15, 7, 4, 56, 789_000_000, ZoneOffset.UTC);
		byte[] binary = timestamp(utc.toLocalDateTime());
		assertThat(both(PgType.TIMESTAMPTZ, "2024-01-15 12:34:56.789+05:30", binary)).isEqualTo(utc);
		assertThat(DECODERS.decodeText(PgType.TIMESTAMPTZ, utf8("2024-01-15 07:04:56.789+00"))).isEqualTo(utc);
		OffsetDateTime lmt = OffsetDateTime.of(1800, 1, 1, 0, 0, 0, 0, ZoneOffset.ofHoursMinutesSeconds(0, 19, 32));
		assertThat(both(PgType.TIMESTAMPTZ, "1800-01-01 00:00:00+00:19:32",
				timestamp(lmt.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime())))
			.isEqualTo(lmt.withOffsetSameInstant(ZoneOffset.UTC));
		OffsetDateTime bc = OffsetDateTime.of(-43, 3, 15, 10, 0, 0, 0, ZoneOffset.UTC);
		assertThat(both(PgType.TIMESTAMPTZ, "0044-03-15 11:00:00+01 BC", timestamp(bc.toLocalDateTime())))
			.isEqualTo(bc);
		assertThat(both(PgType.TIMESTAMPTZ, "infinity", int64(Long.MAX_VALUE))).isEqualTo(OffsetDateTime.MAX);
		assertThat(both(PgType.TIMESTAMPTZ, "-infinity", int64(Long.MIN_VALUE))).isEqualTo(OffsetDateTime.MIN);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|',
			value = { "1 year 2 mons 3 days 04:05:06.789|14|3|14706789000",
					"-1 years -2 mons +3 days -04:05:06|-14|3|-14706000000", "-00:00:01|0|0|-1000000", "00:00:00|0|0|0",
					"1 day|0|1|0", "-1 days|0|-1|0", "2 mons 00:00:00.000001|2|0|1",
					"1 mon -1 days +2562047788:00:54.775807|1|-1|9223372036854775807",
					"-178000000 years|-2136000000|0|0", "infinity|2147483647|2147483647|9223372036854775807" })
	void intervalsDecodeThePostgresStyle(String text, int months, int days, long micros) {
		byte[] binary = ByteBuffer.allocate(16).putLong(micros).putInt(days).putInt(months).array();
		assertThat(both(PgType.INTERVAL, text, binary)).isEqualTo(new Interval(months, days, micros));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "869|2,32,0,4,192,168,0,1|192.168.0.1",
			"869|2,24,0,4,192,168,0,1|192.168.0.1/24", "650|2,8,1,4,10,0,0,0|10.0.0.0/8",
			"650|2,32,1,4,10,0,0,1|10.0.0.1/32", "869|3,128,0,16,32,1,13,184,0,0,0,0,0,0,0,0,0,0,0,1|2001:db8::1",
			"869|3,128,0,16,0,0,0,0,0,0,0,0,0,0,255,255,1,2,3,4|::ffff:1.2.3.4",
			"869|3,128,0,16,0,0,0,0,0,0,0,0,0,0,0,0,1,2,3,4|::1.2.3.4",
			"869|3,128,0,16,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0|::", "869|3,128,0,16,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1|::1",
			"650|3,64,1,16,32,1,13,184,0,0,0,0,0,0,0,0,0,0,0,0|2001:db8::/64",
			"869|3,128,0,16,0,1,0,0,0,1,0,0,0,0,0,0,0,0,0,1|1:0:1::1",
			"869|3,100,0,16,0,1,0,2,0,3,0,4,0,5,0,6,0,7,0,8|1:2:3:4:5:6:7:8/100" })
	void networkAddressesPrintLikeTheServer(int oid, String binary, String text) {
		String[] parts = binary.split(",");
		byte[] bytes = new byte[parts.length];
		for (int i = 0; i < parts.length; i++) {
			bytes[i] = (byte) Integer.parseInt(parts[i]);
		}
		assertThat(both(oid, text, bytes)).isEqualTo(text);
	}

	@Test
	void macAddressesPrintLowercaseHex() {
		assertThat(both(PgType.MACADDR, "08:00:2b:01:02:ff", bytes(8, 0, 0x2b, 1, 2, 0xff)))
			.isEqualTo("08:00:2b:01:02:ff");
		assertThat(both(PgType.MACADDR8, "08:00:2b:01:02:03:04:ab", bytes(8, 0, 0x2b, 1, 2, 3, 4, 0xab)))
			.isEqualTo("08:00:2b:01:02:03:04:ab");
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|',
			value = { "123456|$1,234.56", "-1|-$0.01", "0|$0.00", "100|$1.00", "-12345678901|-$123,456,789.01",
					"9223372036854775807|$92,233,720,368,547,758.07",
					"-9223372036854775808|-$92,233,720,368,547,758.08" })
	void moneyPrintsLikeTheServerInTheCLocale(long cents, String text) {
		assertThat(both(PgType.MONEY, text, int64(cents))).isEqualTo(text);
	}

	@Test
	void bitStringsPrintTheirBits() {
		assertThat(both(PgType.BIT, "10110", bytes(0, 0, 0, 5, 0b10110000))).isEqualTo("10110");
		assertThat(both(PgType.VARBIT, "", bytes(0, 0, 0, 0))).isEqualTo("");
		assertThat(both(PgType.VARBIT, "111111110", bytes(0, 0, 0, 9, 0xFF, 0))).isEqualTo("111111110");
	}

	@Test
	void arraysKeepNullElements() {
		byte[] binary = array(PgType.INT4, new int[] { 3 }, new int[] { 1 }, int32(1), null, int32(-3));
		assertThat(both(PgType.INT4_ARRAY, "{1,NULL,-3}", binary)).isEqualTo(Arrays.asList(1, null, -3));
	}

	@Test
	void textArraysUnquoteAndUnescape() {
		List<String> expected = Arrays.asList("a b", "c\"d", "NULL", null, "\\x", "", "{}", "plain", "é");
		byte[] binary = array(PgType.TEXT, new int[] { 9 }, new int[] { 1 }, utf8("a b"), utf8("c\"d"), utf8("NULL"),
				null, utf8("\\x"), utf8(""), utf8("{}"), utf8("plain"), utf8("é"));
		assertThat(both(PgType.TEXT_ARRAY, "{\"a b\",\"c\\\"d\",\"NULL\",NULL,\"\\\\x\",\"\",\"{}\",plain,é}", binary))
			.isEqualTo(expected);
		assertThat(DECODERS.decodeText(PgType.TEXT_ARRAY, utf8("{ a , b\\ ,null}")))
			.isEqualTo(Arrays.asList("a", "b ", null));
	}

	@Test
	void nestedArraysBecomeNestedLists() {
		byte[] binary = array(PgType.INT4, new int[] { 2, 2 }, new int[] { 1, 1 }, int32(1), int32(2), null, int32(4));
		assertThat(both(PgType.INT4_ARRAY, "{{1,2},{NULL,4}}", binary))
			.isEqualTo(List.of(List.of(1, 2), Arrays.asList(null, 4)));
	}

	@Test
	void arrayLowerBoundsAreDropped() {
		byte[] binary = array(PgType.INT4, new int[] { 2 }, new int[] { 0 }, int32(1), int32(2));
		assertThat(both(PgType.INT4_ARRAY, "[0:1]={1,2}", binary)).isEqualTo(List.of(1, 2));
		byte[] nested = array(PgType.INT4, new int[] { 1, 2 }, new int[] { -2, 5 }, int32(1), int32(2));
		assertThat(both(PgType.INT4_ARRAY, "[-2:-2][5:6]={{1,2}}", nested)).isEqualTo(List.of(List.of(1, 2)));
	}

	@Test
	void emptyArraysAreEmptyLists() {
		byte[] binary = ByteBuffer.allocate(12).putInt(0).putInt(0).putInt(PgType.INT4).array();
		assertThat(both(PgType.INT4_ARRAY, "{}", binary)).isEqualTo(List.of());
	}

	@Test
	void arraysOfEveryElementTypeDecodeTheirElements() {
		byte[] binary = array(PgType.TIMESTAMPTZ, new int[] { 2 }, new int[] { 1 }, null,
				timestamp(LocalDateTime.of(2024, 1, 1, 0, 0)));
		assertThat(both(PgType.TIMESTAMPTZ_ARRAY, "{NULL,\"2024-01-01 01:00:00+01\"}", binary))
			.isEqualTo(Arrays.asList(null, OffsetDateTime.of(2024, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC)));
		byte[] numerics = array(PgType.NUMERIC, new int[] { 2 }, new int[] { 1 }, numericBinary(new BigDecimal("1.50")),
				numericSpecial(0xC000));
		assertThat(both(PgType.NUMERIC_ARRAY, "{1.50,NaN}", numerics))
			.isEqualTo(List.of(new BigDecimal("1.50"), Double.NaN));
	}

	@Test
	void unknownTypesDecodeRaw() {
		assertThat(DECODERS.decodeText(600, utf8("(1,2)"))).isEqualTo("(1,2)");
		assertThat((byte[]) DECODERS.decodeBinary(600, bytes(1, 2))).containsExactly(1, 2);
		assertThat(DECODERS.decodeText(70000, utf8("x"))).isEqualTo("x");
	}

	@Test
	void registeredDecoderOverridesTheBuiltInOne() {
		ValueDecoder upper = new ValueDecoder() {

			@Override
			public Object decodeText(byte[] utf8) {
				return new String(utf8, StandardCharsets.UTF_8).toUpperCase();
			}

			@Override
			public Object decodeBinary(byte[] value) {
				return value.length;
			}

		};
		ValueDecoders decoders = DECODERS.withDecoder(PgType.TEXT, upper).withDecoder(70000, upper);
		assertThat(decoders.decodeText(PgType.TEXT, utf8("abc"))).isEqualTo("ABC");
		assertThat(decoders.decodeBinary(70000, bytes(1, 2))).isEqualTo(2);
		assertThat(DECODERS.decodeText(PgType.TEXT, utf8("abc"))).isEqualTo("abc");
	}

	@Test
	void lookupDecodesEnumsDomainsAndTheirArraysAndIsAskedOncePerOid() {
		int enumOid = 16400;
		int enumArrayOid = 16399;
		int domainOid = 16500;
		AtomicInteger calls = new AtomicInteger();
		ValueDecoders decoders = DECODERS.withLookup((oid, self) -> {
			calls.incrementAndGet();
			if (oid == enumOid) {
				return self.decoderFor(PgType.TEXT);
			}
			if (oid == enumArrayOid) {
				return self.arrayOf(oid, self.decoderFor(enumOid));
			}
			if (oid == domainOid) {
				return self.decoderFor(PgType.INT4);
			}
			return null;
		});
		assertThat(decoders.decodeBinary(enumOid, utf8("happy"))).isEqualTo("happy");
		assertThat(decoders.decodeText(enumArrayOid, utf8("{happy,NULL,\"so so\"}")))
			.isEqualTo(Arrays.asList("happy", null, "so so"));
		assertThat(decoders.decodeBinary(domainOid, int32(42))).isEqualTo(42);
		assertThat(decoders.decodeText(domainOid, utf8("42"))).isEqualTo(42);
		assertThat(decoders.decodeText(16600, utf8("?"))).isEqualTo("?");
		assertThat(decoders.decodeText(16600, utf8("?"))).isEqualTo("?");
		assertThat(calls).hasValue(4);
	}

	@Test
	void failingCustomDecoderIsWrappedWithoutItsMessage() {
		ValueDecoder failing = new ValueDecoder() {

			@Override
			public Object decodeText(byte[] utf8) {
				throw new IllegalStateException("secret " + new String(utf8, StandardCharsets.UTF_8));
			}

			@Override
			public Object decodeBinary(byte[] value) {
				throw new IllegalStateException("secret");
			}

		};
		assertThatExceptionOfType(ValueDecodingException.class)
			.isThrownBy(() -> DECODERS.withDecoder(70001, failing).decodeText(70001, utf8("value")))
			.satisfies((ex) -> assertThat(ex.getMessage()).contains("70001").doesNotContain("secret"))
			.satisfies((ex) -> assertThat(ex.getCause()).isNull());
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|',
			value = { "16|SECRETx", "21|99999SECRET", "21|40000", "23|SECRET", "20|9223372036854775808", "20|-",
					"26|-1", "700|0xSECRET", "701|1.0dSECRET", "1700|1.2.3SECRET", "1700|SECRET", "1700|Inf",
					"17|\\xSECRET", "17|SECRET\\9", "2950|SECRET-0000-0000-0000-000000000000", "1082|2024-02-30SECRET",
					"1082|SECRET", "1083|25:00:00", "1083|12:00SECRET", "1266|12:00:00", "1114|2024-01-01SECRET",
					"1184|2024-01-01 00:00:00", "1186|1 fortnight SECRET", "1186|SECRET", "1186|99999999999 years",
					"1007|{1,SECRET}", "1007|{1,2", "1007|{{{{{{{1}}}}}}}", "1007|SECRET{}", "1009|{\"SECRET}",
					"1009|{a,,b}", "1009|[1:SECRET]={a}", "1009|{SECRET\"}" })
	void malformedTextRaisesAnErrorWithoutTheValue(int oid, String text) {
		assertThatExceptionOfType(ValueDecodingException.class).isThrownBy(() -> DECODERS.decodeText(oid, utf8(text)))
			.satisfies((ex) -> assertThat(ex.getMessage()).contains(Integer.toString(oid))
				.doesNotContain("SECRET")
				.doesNotContain(text))
			.satisfies((ex) -> assertThat(ex.typeOid()).isEqualTo(oid));
	}

	@Test
	void malformedBinaryRaisesAnErrorWithoutTheValue() {
		byte[] secret = utf8("SECRET-SECRET-SECRET");
		for (int oid : builtinOids()) {
			int expectedOid = oid;
			if (isStringLike(oid) || oid == PgType.BYTEA) {
				continue;
			}
			assertThatExceptionOfType(ValueDecodingException.class).as("OID %d", oid)
				.isThrownBy(() -> DECODERS.decodeBinary(expectedOid, secret))
				.satisfies((ex) -> assertThat(ex.getMessage()).doesNotContain("SECRET"));
		}
	}

	@Property(tries = 300)
	void randomBytesOnlyEverRaiseValueDecodingException(@ForAll byte[] value) {
		for (int oid : builtinOids()) {
			decodeQuietly(oid, value);
		}
	}

	@Property(tries = 1000)
	void randomTextOnlyEverRaisesValueDecodingException(@ForAll("plausibleText") String text) {
		byte[] value = utf8(text);
		for (int oid : builtinOids()) {
			decodeQuietly(oid, value);
		}
	}

	@Provide
	Arbitrary<String> plausibleText() {
		return Arbitraries.strings().withChars("{}[]:=,\"\\ NULnul0123456789.-+eE:xBCIfinty/").ofMaxLength(40);
	}

	@Property
	void longsRoundTripThroughBothFormats(@ForAll long value) {
		assertThat(both(PgType.INT8, Long.toString(value), int64(value))).isEqualTo(value);
	}

	@Property
	void intsRoundTripThroughBothFormats(@ForAll int value) {
		assertThat(both(PgType.INT4, Integer.toString(value), int32(value))).isEqualTo(value);
	}

	@Property
	void doublesRoundTripThroughBothFormats(@ForAll double value) {
		String text = Double.isNaN(value) ? "NaN"
				: Double.isInfinite(value) ? (value > 0 ? "Infinity" : "-Infinity") : Double.toString(value);
		assertThat(both(PgType.FLOAT8, text, int64(Double.doubleToRawLongBits(value)))).isEqualTo(value);
	}

	@Property
	void numericsRoundTripThroughBothFormats(@ForAll BigInteger unscaled, @ForAll("scales") int scale) {
		BigDecimal value = new BigDecimal(unscaled, scale);
		assertThat(both(PgType.NUMERIC, value.toPlainString(), numericBinary(value))).isEqualTo(value);
	}

	@Provide
	Arbitrary<Integer> scales() {
		return Arbitraries.integers().between(0, 40);
	}

	/** The server's timestamp range: 4714-11-24 BC to 294276-12-31 AD. */
	@Property
	void timestampsRoundTripThroughBothFormats(
			@ForAll @LongRange(min = -211813488000000000L, max = 9223371331199999999L) long micros) {
		LocalDateTime expected = LocalDateTime.of(2000, 1, 1, 0, 0).plus(micros, ChronoUnit.MICROS);
		assertThat(both(PgType.TIMESTAMP, serverText(expected), int64(micros))).isEqualTo(expected);
		String text = serverText(expected);
		String withOffset = text.endsWith(" BC") ? text.replace(" BC", "+00 BC") : text + "+00";
		assertThat(both(PgType.TIMESTAMPTZ, withOffset, int64(micros)))
			.isEqualTo(OffsetDateTime.of(expected, ZoneOffset.UTC));
	}

	@Property
	void datesRoundTripThroughBothFormats(@ForAll @LongRange(min = -2451545, max = 2145031948) long days) {
		LocalDate expected = PG_EPOCH.plusDays(days);
		String text = serverText(expected.atStartOfDay());
		String dateText = text.substring(0, text.indexOf(' ')) + (text.endsWith(" BC") ? " BC" : "");
		assertThat(both(PgType.DATE, dateText, int32((int) days))).isEqualTo(expected);
	}

	/** Prints a timestamp as the server does under DateStyle ISO. */
	private static String serverText(LocalDateTime value) {
		int year = value.getYear();
		boolean bc = year <= 0;
		StringBuilder text = new StringBuilder();
		text.append(String.format("%04d-%02d-%02d %02d:%02d:%02d", bc ? 1 - year : year, value.getMonthValue(),
				value.getDayOfMonth(), value.getHour(), value.getMinute(), value.getSecond()));
		int micros = value.getNano() / 1000;
		if (micros != 0) {
			String fraction = String.format("%06d", micros).replaceAll("0+$", "");
			text.append('.').append(fraction);
		}
		return bc ? text.append(" BC").toString() : text.toString();
	}

	private static void decodeQuietly(int oid, byte[] value) {
		try {
			DECODERS.decodeText(oid, value);
		}
		catch (ValueDecodingException ex) {
			assertThat(ex.typeOid()).isEqualTo(oid);
		}
		try {
			DECODERS.decodeBinary(oid, value);
		}
		catch (ValueDecodingException ex) {
			assertThat(ex.typeOid()).isEqualTo(oid);
		}
	}

	static List<Integer> builtinOids() {
		List<Integer> oids = new ArrayList<>();
		for (Field field : PgType.class.getFields()) {
			if (Modifier.isStatic(field.getModifiers()) && field.getType() == int.class) {
				try {
					oids.add(field.getInt(null));
				}
				catch (IllegalAccessException ex) {
					throw new IllegalStateException(ex);
				}
			}
		}
		return oids;
	}

	private static boolean isStringLike(int oid) {
		return oid == PgType.TEXT || oid == PgType.VARCHAR || oid == PgType.BPCHAR || oid == PgType.NAME
				|| oid == PgType.XML || oid == PgType.JSON || oid == PgType.INET || oid == PgType.CIDR
				|| oid == PgType.MONEY || oid == PgType.BIT || oid == PgType.VARBIT || oid == PgType.MACADDR
				|| oid == PgType.MACADDR8 || oid == PgType.CHAR;
	}

	/** Decodes text and binary, asserts they are equal, and returns the value. */
	private static Object both(int oid, String text, byte[] binary) {
		Object fromText = DECODERS.decodeText(oid, utf8(text));
		Object fromBinary = DECODERS.decodeBinary(oid, binary);
		if (fromText instanceof byte[] bytes) {
			assertThat(fromBinary).isInstanceOf(byte[].class);
			assertThat((byte[]) fromBinary).containsExactly(bytes);
		}
		else {
			assertThat(fromBinary).isEqualTo(fromText);
		}
		return fromText;
	}

	static byte[] numericBinary(BigDecimal value) {
		int dscale = Math.max(value.scale(), 0);
		String plain = value.setScale(dscale).abs().toPlainString();
		int point = plain.indexOf('.');
		String integer = (point < 0) ? plain : plain.substring(0, point);
		String fraction = (point < 0) ? "" : plain.substring(point + 1);
		integer = "0".repeat((4 - integer.length() % 4) % 4) + integer;
		fraction = fraction + "0".repeat((4 - fraction.length() % 4) % 4);
		String all = integer + fraction;
		List<Integer> digits = new ArrayList<>();
		for (int i = 0; i < all.length(); i += 4) {
			digits.add(Integer.parseInt(all.substring(i, i + 4)));
		}
		int weight = integer.length() / 4 - 1;
		while (!digits.isEmpty() && digits.get(0) == 0) {
			digits.remove(0);
			weight--;
		}
		while (!digits.isEmpty() && digits.get(digits.size() - 1) == 0) {
			digits.remove(digits.size() - 1);
		}
		if (digits.isEmpty()) {
			weight = 0;
		}
		ByteBuffer buffer = ByteBuffer.allocate(8 + 2 * digits.size());
		buffer.putShort((short) digits.size())
			.putShort((short) weight)
			.putShort((short) ((value.signum() < 0) ? 0x4000 : 0))
			.putShort((short) dscale);
		digits.forEach((digit) -> buffer.putShort(digit.shortValue()));
		return buffer.array();
	}

	private static byte[] numericSpecial(int sign) {
		return ByteBuffer.allocate(8)
			.putShort((short) 0)
			.putShort((short) 0)
			.putShort((short) sign)
			.putShort((short) 0)
			.array();
	}

	static byte[] array(int elementOid, int[] lengths, int[] lowerBounds, byte[]... elements) {
		try {
			ByteArrayOutputStream bytes = new ByteArrayOutputStream();
			DataOutputStream out = new DataOutputStream(bytes);
			out.writeInt(lengths.length);
			out.writeInt(Arrays.stream(elements).anyMatch((element) -> element == null) ? 1 : 0);
			out.writeInt(elementOid);
			for (int i = 0; i < lengths.length; i++) {
				out.writeInt(lengths[i]);
				out.writeInt(lowerBounds[i]);
			}
			for (byte[] element : elements) {
				if (element == null) {
					out.writeInt(-1);
				}
				else {
					out.writeInt(element.length);
					out.write(element);
				}
			}
			return bytes.toByteArray();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static byte[] date(LocalDate date) {
		return int32((int) ChronoUnit.DAYS.between(PG_EPOCH, date));
	}

	private static byte[] timestamp(LocalDateTime value) {
		return int64(ChronoUnit.MICROS.between(PG_EPOCH.atStartOfDay(), value));
	}

	static byte[] int32(int value) {
		return ByteBuffer.allocate(4).putInt(value).array();
	}

	static byte[] int64(long value) {
		return ByteBuffer.allocate(8).putLong(value).array();
	}

	static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] bytes(int... values) {
		byte[] bytes = new byte[values.length];
		for (int i = 0; i < values.length; i++) {
			bytes[i] = (byte) values[i];
		}
		return bytes;
	}

	private static byte[] concat(byte[] first, byte[] second) {
		byte[] result = Arrays.copyOf(first, first.length + second.length);
		System.arraycopy(second, 0, result, first.length, second.length);
		return result;
	}

}
