package io.postlog.types;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * Base of postlog's own decoders: turns any failure of the parsing code into a
 * {@link ValueDecodingException} that names the type OID and the kind of failure, never
 * the value (a JDK exception's message may quote its input, so it is dropped).
 */
abstract class BuiltinDecoder implements ValueDecoder {

	final int oid;

	BuiltinDecoder(int oid) {
		this.oid = oid;
	}

	@Override
	public final @Nullable Object decodeText(byte[] utf8) {
		return decodeText(utf8, 0, utf8.length);
	}

	@Override
	public final @Nullable Object decodeBinary(byte[] value) {
		return decodeBinary(value, 0, value.length);
	}

	@Override
	public final @Nullable Object decodeText(byte[] source, int offset, int length) {
		try {
			return text(source, offset, length);
		}
		catch (ValueDecodingException ex) {
			throw ex;
		}
		catch (MalformedValueException ex) {
			throw new ValueDecodingException(this.oid, "malformed text value, " + ex.getMessage());
		}
		catch (RuntimeException ex) {
			throw new ValueDecodingException(this.oid, "malformed text value (" + ex.getClass().getSimpleName() + ")");
		}
	}

	@Override
	public final @Nullable Object decodeBinary(byte[] source, int offset, int length) {
		try {
			return binary(source, offset, length);
		}
		catch (ValueDecodingException ex) {
			throw ex;
		}
		catch (MalformedValueException ex) {
			throw new ValueDecodingException(this.oid, "malformed binary value, " + ex.getMessage());
		}
		catch (RuntimeException ex) {
			throw new ValueDecodingException(this.oid,
					"malformed binary value (" + ex.getClass().getSimpleName() + ")");
		}
	}

	abstract @Nullable Object text(byte[] utf8);

	abstract @Nullable Object binary(byte[] value);

	/**
	 * Decodes a text value given as a slice; by default from a copy. Decoders of the
	 * common types read it in place.
	 */
	@Nullable Object text(byte[] source, int offset, int length) {
		return text(copy(source, offset, length));
	}

	/**
	 * Decodes a binary value given as a slice; by default from a copy. Decoders of the
	 * common types read it in place.
	 */
	@Nullable Object binary(byte[] source, int offset, int length) {
		return binary(copy(source, offset, length));
	}

	static byte[] copy(byte[] source, int offset, int length) {
		return (offset == 0 && length == source.length) ? source : Arrays.copyOfRange(source, offset, offset + length);
	}

	static void requireLength(int actual, int length) {
		if (actual != length) {
			throw malformed("expected " + length + " bytes but got " + actual);
		}
	}

	static MalformedValueException malformed(String reason) {
		return new MalformedValueException(reason);
	}

	static void requireLength(byte[] value, int length) {
		if (value.length != length) {
			throw malformed("expected " + length + " bytes but got " + value.length);
		}
	}

	static int int32(byte[] b, int at) {
		return (b[at] << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
	}

	static int int16(byte[] b, int at) {
		return (short) ((b[at] << 8) | (b[at + 1] & 0xFF));
	}

	static long int64(byte[] b, int at) {
		return ((long) int32(b, at) << 32) | (int32(b, at + 4) & 0xFFFFFFFFL);
	}

	/**
	 * A value-free reason for a malformed value, raised by the parsing helpers and turned
	 * into a {@link ValueDecodingException} by {@link BuiltinDecoder}. No stack trace: it
	 * is control flow.
	 */
	static final class MalformedValueException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		MalformedValueException(String reason) {
			super(reason, null, false, false);
		}

	}

}
