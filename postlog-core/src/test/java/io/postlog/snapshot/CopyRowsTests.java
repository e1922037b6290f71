package io.postlog.snapshot;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class CopyRowsTests {

	private static final byte[] SIGNATURE = { 'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0 };

	@Test
	void binaryRowsAreSplitIntoFieldsWithNulls() throws SQLException {
		byte[] data = binary(new byte[][][] { { bytes("a"), null, bytes("") }, { bytes("xyz"), bytes("1"), null } });
		assertThat(rows(data, true, data.length, 3)).containsExactly(List.of("a", "NULL", ""),
				List.of("xyz", "1", "NULL"));
	}

	@Test
	void binaryRowsReadTheSameAcrossAnyMessageBoundaries() throws SQLException {
		byte[] data = binary(new byte[][][] { { bytes("first value"), null }, { bytes("second"), bytes("x") } });
		List<List<String>> whole = rows(data, true, data.length, 2);
		for (int size = 1; size < data.length; size++) {
			assertThat(rows(data, true, size, 2)).as("messages of %d bytes", size).isEqualTo(whole);
		}
	}

	@Test
	void everyTruncationOfBinaryDataIsATypedError() {
		byte[] data = binary(new byte[][][] { { bytes("abc"), null }, { bytes("de"), bytes("f") } });
		for (int length = 0; length < data.length; length++) {
			byte[] truncated = Arrays.copyOf(data, length);
			assertThatExceptionOfType(CopyFormatException.class).as("truncated to %d bytes", length)
				.isThrownBy(() -> rows(truncated, true, 7, 2))
				.withMessageContaining("of the COPY data");
		}
	}

	@Test
	void binaryRowWithAnotherFieldCountIsATypedError() {
		byte[] data = binary(new byte[][][] { { bytes("a") } });
		assertThatExceptionOfType(CopyFormatException.class).isThrownBy(() -> rows(data, true, data.length, 2))
			.withMessageContaining("row has 1 fields, expected 2");
	}

	@Test
	void binaryDataWithoutTheSignatureIsATypedError() {
		byte[] data = binary(new byte[][][] {});
		data[0] = 'X';
		assertThatExceptionOfType(CopyFormatException.class).isThrownBy(() -> rows(data, true, data.length, 1))
			.withMessageContaining("signature");
	}

	@Test
	void binaryDataAfterTheTrailerIsATypedError() {
		byte[] data = binary(new byte[][][] {});
		byte[] longer = Arrays.copyOf(data, data.length + 1);
		assertThatExceptionOfType(CopyFormatException.class).isThrownBy(() -> rows(longer, true, longer.length, 1))
			.withMessageContaining("after the trailer");
	}

	@Test
	void textRowsUndoCopyEscaping() throws SQLException {
		byte[] data = "a\\tb\\nc\\\\d\t\\N\t\\\\N\n\\b\\f\\r\\v\t\\101\\x42\\q\t\n".getBytes(StandardCharsets.UTF_8);
		assertThat(rows(data, false, data.length, 3)).containsExactly(List.of("a\tb\nc\\d", "NULL", "\\N"),
				List.of("\b\f\r\u000B", "ABq", ""));
	}

	@Test
	void textRowsUndoCopyEscapingTheSameAcrossAnyMessageBoundaries() throws SQLException {
		byte[] data = "a\\tb\\\\\\x4\t\\N\tend\\n\n\\N\t\\x41z\\7\t\\0101\n".getBytes(StandardCharsets.UTF_8);
		List<List<String>> expected = List.of(List.of("a\tb\\\u0004", "NULL", "end\n"),
				List.of("NULL", "Az\u0007", "\u00081"));
		for (int size = 1; size <= data.length; size++) {
			assertThat(rows(data, false, size, 3)).as("messages of %d bytes", size).isEqualTo(expected);
		}
	}

	@Test
	void aRowInOneMessageIsReadAsSlicesOfTheMessage() throws SQLException {
		byte[] message = "12\\tab\tc\\\\d\n".getBytes(StandardCharsets.UTF_8);
		Iterator<byte[]> source = List.of(message).iterator();
		CopyRows rows = CopyRows.of(new CopyInput(() -> source.hasNext() ? source.next() : null), false);
		CopyFields fields = new CopyFields(2);
		assertThat(rows.next(fields)).isTrue();
		assertThat(fields.source(0)).isSameAs(message);
		assertThat(fields.source(1)).isSameAs(message);
		assertThat(new String(message, fields.offset(1), fields.length(1), StandardCharsets.UTF_8)).isEqualTo("c\\d");
		assertThat(fields.hash(0)).isEqualTo(Arrays.hashCode("12\tab".getBytes(StandardCharsets.UTF_8)));
		assertThat(fields.copy(1)).isEqualTo("c\\d".getBytes(StandardCharsets.UTF_8));
		assertThat(rows.next(fields)).isFalse();
	}

	@Test
	void aBinaryFieldInOneMessageIsASliceOfTheMessage() throws SQLException {
		byte[] message = binary(new byte[][][] { { bytes("large value"), null } });
		Iterator<byte[]> source = List.of(message).iterator();
		CopyRows rows = CopyRows.of(new CopyInput(() -> source.hasNext() ? source.next() : null), true);
		CopyFields fields = new CopyFields(2);
		assertThat(rows.next(fields)).isTrue();
		assertThat(fields.source(0)).isSameAs(message);
		assertThat(fields.copy(0)).isEqualTo(bytes("large value"));
		assertThat(fields.isNull(1)).isTrue();
		assertThat(fields.copy(1)).isNull();
	}

	@Test
	void textRowsKeepMultiByteCharactersAcrossMessageBoundaries() throws SQLException {
		byte[] data = "zoë ☃ 𝄞\tx\n\tlast\n".getBytes(StandardCharsets.UTF_8);
		for (int size = 1; size <= data.length; size++) {
			assertThat(rows(data, false, size, 2)).as("messages of %d bytes", size)
				.containsExactly(List.of("zoë ☃ 𝄞", "x"), List.of("", "last"));
		}
	}

	@Test
	void textRowWithoutNewlineOrWithAnotherFieldCountIsATypedError() {
		byte[] unterminated = "a\tb".getBytes(StandardCharsets.UTF_8);
		assertThatExceptionOfType(CopyFormatException.class).isThrownBy(() -> rows(unterminated, false, 2, 2))
			.withMessageContaining("without a newline");
		byte[] wide = "a\tb\tc\n".getBytes(StandardCharsets.UTF_8);
		assertThatExceptionOfType(CopyFormatException.class).isThrownBy(() -> rows(wide, false, 100, 2))
			.withMessageContaining("more than 2 fields");
		byte[] trailingBackslash = "a\\\n".getBytes(StandardCharsets.UTF_8);
		assertThatExceptionOfType(CopyFormatException.class).isThrownBy(() -> rows(trailingBackslash, false, 100, 1))
			.withMessageContaining("backslash at the end");
	}

	private static List<List<String>> rows(byte[] data, boolean binary, int messageSize, int fieldCount)
			throws SQLException {
		List<byte[]> messages = new ArrayList<>();
		for (int at = 0; at < data.length; at += messageSize) {
			messages.add(Arrays.copyOfRange(data, at, Math.min(data.length, at + messageSize)));
		}
		Iterator<byte[]> source = messages.iterator();
		CopyRows rows = CopyRows.of(new CopyInput(() -> source.hasNext() ? source.next() : null), binary);
		CopyFields fields = new CopyFields(fieldCount);
		List<List<String>> result = new ArrayList<>();
		while (rows.next(fields)) {
			List<String> row = new ArrayList<>();
			for (int i = 0; i < fieldCount; i++) {
				row.add(fields.isNull(i) ? "NULL"
						: new String(fields.source(i), fields.offset(i), fields.length(i), StandardCharsets.UTF_8));
			}
			result.add(row);
		}
		for (int i = 0; i < fieldCount; i++) {
			assertThat(fields.isNull(i)).as("field %d cleared at the end", i).isTrue();
		}
		return result;
	}

	private static byte[] binary(byte[][][] rows) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		out.writeBytes(SIGNATURE);
		out.writeBytes(ByteBuffer.allocate(8).putInt(0).putInt(0).array());
		for (byte[][] row : rows) {
			out.writeBytes(ByteBuffer.allocate(2).putShort((short) row.length).array());
			for (byte @Nullable [] field : row) {
				out.writeBytes(ByteBuffer.allocate(4).putInt((field != null) ? field.length : -1).array());
				if (field != null) {
					out.writeBytes(field);
				}
			}
		}
		out.writeBytes(ByteBuffer.allocate(2).putShort((short) -1).array());
		return out.toByteArray();
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
