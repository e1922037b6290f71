package io.postlog.types;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class VectorDecoderTests {

	private static final ValueDecoders DECODERS = ValueDecoders.standard();

	@Test
	void int2vectorDecodesToShortsInBothFormats() {
		List<Short> expected = List.of((short) 1, (short) 2, (short) -32768);
		assertThat(DECODERS.decodeText(PgType.INT2VECTOR, utf8("1 2 -32768"))).isEqualTo(expected);
		ByteBuffer binary = header(3, PgType.INT2);
		for (short value : expected) {
			binary.putInt(2).putShort(value);
		}
		assertThat(DECODERS.decodeBinary(PgType.INT2VECTOR, bytes(binary))).isEqualTo(expected);
	}

	@Test
	void oidvectorDecodesToLongsInBothFormats() {
		List<Long> expected = List.of(23L, 4294967295L);
		assertThat(DECODERS.decodeText(PgType.OIDVECTOR, utf8("23 4294967295"))).isEqualTo(expected);
		ByteBuffer binary = header(2, PgType.OID).putInt(4).putInt(23).putInt(4).putInt(-1);
		assertThat(DECODERS.decodeBinary(PgType.OIDVECTOR, bytes(binary))).isEqualTo(expected);
	}

	@Test
	void emptyVectorIsAnEmptyList() {
		assertThat(DECODERS.decodeText(PgType.OIDVECTOR, utf8(""))).isEqualTo(List.of());
		assertThat(DECODERS.decodeBinary(PgType.OIDVECTOR, bytes(header(0, PgType.OID)))).isEqualTo(List.of());
	}

	@Test
	void arraysOfVectorsNestTheLists() {
		assertThat(DECODERS.decodeText(PgType.INT2VECTOR_ARRAY, utf8("{\"1 2\",3,\"\"}")))
			.isEqualTo(List.of(List.of((short) 1, (short) 2), List.of((short) 3), List.of()));
	}

	@Test
	void malformedVectorsNameTheVectorType() {
		for (String text : new String[] { " ", "1  2", "1 ", "{1,2}", "1 x", "70000" }) {
			assertThatExceptionOfType(ValueDecodingException.class)
				.isThrownBy(() -> DECODERS.decodeText(PgType.INT2VECTOR, utf8(text)))
				.satisfies((ex) -> assertThat(ex.typeOid()).isEqualTo(PgType.INT2VECTOR));
		}
		ByteBuffer withNull = header(1, PgType.INT2).putInt(-1);
		assertThatExceptionOfType(ValueDecodingException.class)
			.isThrownBy(() -> DECODERS.decodeBinary(PgType.INT2VECTOR, bytes(withNull)))
			.satisfies((ex) -> assertThat(ex.typeOid()).isEqualTo(PgType.INT2VECTOR));
	}

	/** {@code array_send}'s header of a one-dimensional array with lower bound 0. */
	private static ByteBuffer header(int length, int elementOid) {
		ByteBuffer buffer = ByteBuffer.allocate(256);
		buffer.putInt(1).putInt(0).putInt(elementOid).putInt(length).putInt(0);
		return buffer;
	}

	private static byte[] bytes(ByteBuffer buffer) {
		byte[] bytes = new byte[buffer.position()];
		buffer.flip().get(bytes);
		return bytes;
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
