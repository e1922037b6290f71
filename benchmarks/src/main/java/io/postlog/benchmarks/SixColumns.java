package io.postlog.benchmarks;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.pgoutput.PgOutputMessage.Relation;
import io.postlog.pgoutput.TupleData;
import io.postlog.pgoutput.TupleValue;
import io.postlog.types.PgType;

/**
 * The benchmarks' row: bigint, int, text, timestamptz, numeric and jsonb, in the text and
 * binary forms the server sends.
 */
final class SixColumns {

	static final int RELATION_ID = 16384;

	static final int[] OIDS = { PgType.INT8, PgType.INT4, PgType.TEXT, PgType.TIMESTAMPTZ, PgType.NUMERIC,
			PgType.JSONB };

	static final Relation RELATION = new Relation(null, RELATION_ID, "public", "orders", 'd',
			List.of(new Column(1, "id", PgType.INT8, -1), new Column(0, "quantity", PgType.INT4, -1),
					new Column(0, "note", PgType.TEXT, -1), new Column(0, "placed_at", PgType.TIMESTAMPTZ, -1),
					new Column(0, "amount", PgType.NUMERIC, 655366), new Column(0, "details", PgType.JSONB, -1)));

	static final byte[][] TEXT = { utf8("1234567890123"), utf8("42"), utf8("please deliver to the back door"),
			utf8("2024-01-15 12:34:56.789012+00"), utf8("12345.67"), utf8("{\"qty\": 3, \"sku\": \"A-1\"}") };

	static final byte[][] BINARY = { ByteBuffer.allocate(8).putLong(1234567890123L).array(),
			ByteBuffer.allocate(4).putInt(42).array(), utf8("please deliver to the back door"),
			// 2024-01-15 12:34:56.789012 UTC in microseconds since 2000-01-01
			ByteBuffer.allocate(8).putLong(758637296789012L).array(),
			// 12345.67: digits 1, 2345, 6700 (base 10000), weight 1, dscale 2
			ByteBuffer.allocate(14)
				.putShort((short) 3)
				.putShort((short) 1)
				.putShort((short) 0)
				.putShort((short) 2)
				.putShort((short) 1)
				.putShort((short) 2345)
				.putShort((short) 6700)
				.array(),
			jsonb("{\"qty\": 3, \"sku\": \"A-1\"}") };

	static final TupleData TEXT_TUPLE = tuple(TEXT, false);

	static final TupleData BINARY_TUPLE = tuple(BINARY, true);

	private SixColumns() {
	}

	private static TupleData tuple(byte[][] values, boolean binary) {
		TupleValue[] tuple = new TupleValue[values.length];
		for (int i = 0; i < values.length; i++) {
			tuple[i] = binary ? new TupleValue.Binary(values[i]) : new TupleValue.Text(values[i]);
		}
		return new TupleData(List.of(tuple));
	}

	private static byte[] jsonb(String json) {
		byte[] text = utf8(json);
		byte[] bytes = new byte[text.length + 1];
		bytes[0] = 1;
		System.arraycopy(text, 0, bytes, 1, text.length);
		return bytes;
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
