package io.postlog.types;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * Decodes the values of one PostgreSQL type from its text output or binary send format.
 * Implementations are stateless and thread-safe, never keep the array they are given, and
 * throw {@link ValueDecodingException} (whose message never contains the value) on
 * malformed input. A value may be given as a whole array or as a slice of a larger one
 * (the message it arrived in); the slice methods copy it out by default, and postlog's
 * own decoders read it in place.
 */
public interface ValueDecoder {

	/**
	 * Decodes a value in the type's text output format.
	 * @param utf8 the UTF-8 text, never SQL {@code NULL}
	 * @return the Java value
	 * @throws ValueDecodingException if the text is malformed
	 */
	@Nullable Object decodeText(byte[] utf8);

	/**
	 * Decodes a value in the type's binary send format.
	 * @param value the bytes, never SQL {@code NULL}
	 * @return the Java value
	 * @throws ValueDecodingException if the bytes are malformed
	 */
	@Nullable Object decodeBinary(byte[] value);

	/**
	 * Decodes a value in the type's text output format, given as a slice of an array.
	 * @param source the array holding the UTF-8 text
	 * @param offset where the value starts
	 * @param length its length in bytes
	 * @return the Java value
	 * @throws ValueDecodingException if the text is malformed
	 */
	default @Nullable Object decodeText(byte[] source, int offset, int length) {
		return decodeText(whole(source, offset, length));
	}

	/**
	 * Decodes a value in the type's binary send format, given as a slice of an array.
	 * @param source the array holding the bytes
	 * @param offset where the value starts
	 * @param length its length in bytes
	 * @return the Java value
	 * @throws ValueDecodingException if the bytes are malformed
	 */
	default @Nullable Object decodeBinary(byte[] source, int offset, int length) {
		return decodeBinary(whole(source, offset, length));
	}

	private static byte[] whole(byte[] source, int offset, int length) {
		return (offset == 0 && length == source.length) ? source : Arrays.copyOfRange(source, offset, offset + length);
	}

}
