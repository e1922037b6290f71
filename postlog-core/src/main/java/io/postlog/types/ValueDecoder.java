package io.postlog.types;

import org.jspecify.annotations.Nullable;

/**
 * Decodes the values of one PostgreSQL type from its text output or binary send format.
 * Implementations are stateless and thread-safe, never keep the array they are given, and
 * throw {@link ValueDecodingException} (whose message never contains the value) on
 * malformed input.
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

}
