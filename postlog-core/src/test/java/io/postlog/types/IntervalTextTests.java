package io.postlog.types;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Intervals in each {@code IntervalStyle}, as PostgreSQL 15 printed them
 * ({@code SET IntervalStyle = ...; SELECT v::text}), decode to the same value as the
 * binary form.
 */
class IntervalTextTests {

	private static final ValueDecoders DECODERS = ValueDecoders.standard();

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "00:00:00|@ 0|0|PT0S|0|0|0",
			"1 year 2 mons 3 days 04:05:06.789|@ 1 year 2 mons 3 days 4 hours 5 mins 6.789 secs|+1-2 +3 +4:05:06.789"
					+ "|P1Y2M3DT4H5M6.789S|14|3|14706789000",
			"-1 years -2 mons +3 days -04:05:06|@ 1 year 2 mons -3 days 4 hours 5 mins 6 secs ago|-1-2 +3 -4:05:06"
					+ "|P-1Y-2M3DT-4H-5M-6S|-14|3|-14706000000",
			"-1 days +02:00:00|@ 1 day -2 hours ago|+0-0 -1 +2:00:00|P-1DT2H|0|-1|7200000000",
			"1 day -02:00:00|@ 1 day -2 hours|+0-0 +1 -2:00:00|P1DT-2H|0|1|-7200000000",
			"-00:00:00.000001|@ 0.000001 secs ago|-0:00:00.000001|PT-0.000001S|0|0|-1",
			"1 year|@ 1 year|1-0|P1Y|12|0|0", "-1 years|@ 1 year ago|-1-0|P-1Y|-12|0|0",
			"3 days|@ 3 days|3 0:00:00|P3D|0|3|0",
			"-3 days -04:00:00|@ 3 days 4 hours ago|-3 4:00:00|P-3DT-4H|0|-3|-14400000000",
			"2562047788:00:54.775807|@ 2562047788 hours 54.775807 secs|2562047788:00:54.775807"
					+ "|PT2562047788H54.775807S|0|0|9223372036854775807",
			"-2562047788:00:54.775808|@ 2562047788 hours 54.775808 secs ago|-2562047788:00:54.775808"
					+ "|PT-2562047788H-54.775808S|0|0|-9223372036854775808",
			"178956970 years 7 mons|@ 178956970 years 7 mons|178956970-7|P178956970Y7M|2147483647|0|0",
			"-178956970 years -8 mons|@ 178956970 years 8 mons ago|-178956970-8|P-178956970Y-8M|-2147483648|0|0",
			"00:00:01|@ 1 sec|0:00:01|PT1S|0|0|1000000", "00:01:00|@ 1 min|0:01:00|PT1M|0|0|60000000",
			"1 mon|@ 1 mon|0-1|P1M|1|0|0",
			"2147483647 days|@ 2147483647 days|2147483647 0:00:00|P2147483647D|0|2147483647|0",
			"-2147483648 days|@ 2147483648 days ago|-2147483648 0:00:00|P-2147483648D|0|-2147483648|0",
			"1 year -1 days|@ 1 year -1 days|+1-0 -1 +0:00:00|P1Y-1D|12|-1|0", "-1 mons|@ 1 mon ago|-0-1|P-1M|-1|0|0",
			"25:00:00|@ 25 hours|25:00:00|PT25H|0|0|90000000000" })
	void everyIntervalStyleDecodesToTheBinaryValue(String postgres, String verbose, String sqlStandard, String iso,
			int months, int days, long micros) {
		Interval expected = new Interval(months, days, micros);
		byte[] binary = ByteBuffer.allocate(16).putLong(micros).putInt(days).putInt(months).array();
		assertThat(DECODERS.decodeBinary(PgType.INTERVAL, binary)).isEqualTo(expected);
		for (String text : new String[] { postgres, verbose, sqlStandard, iso }) {
			assertThat(DECODERS.decodeText(PgType.INTERVAL, text.getBytes(StandardCharsets.US_ASCII))).as(text)
				.isEqualTo(expected);
		}
	}

	@Test
	void smallestDayCountAsServersBefore15PrintIt() {
		for (String text : new String[] { "@ -2147483648 days ago", "--2147483648 0:00:00" }) {
			assertThat(DECODERS.decodeText(PgType.INTERVAL, text.getBytes(StandardCharsets.US_ASCII))).as(text)
				.isEqualTo(new Interval(0, Integer.MIN_VALUE, 0));
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "@", "@ ", "P", "PT", "1 fortnight", "1 year ago", "@ 1 year ago ago", "@ ago",
			"@ 1.5 days", "1-2 3", "1-2 +3 +4:05:06", "+1-2 +3 4:05:06", "P1.5Y", "PT1.5H", "P1H", "PT1D", "00:60:00",
			"00:00:60", "1 2", "0 0", "+0", "-", "1 year 2", "3 4:5:06", "9999999999999999999 days", "2147483648 days",
			"P2147483648D", "3000000000:00:00" })
	void malformedIntervalsAreValueDecodingErrors(String text) {
		assertThatExceptionOfType(ValueDecodingException.class)
			.isThrownBy(() -> DECODERS.decodeText(PgType.INTERVAL, text.getBytes(StandardCharsets.US_ASCII)))
			.satisfies((ex) -> assertThat(ex.typeOid()).isEqualTo(PgType.INTERVAL));
	}

}
