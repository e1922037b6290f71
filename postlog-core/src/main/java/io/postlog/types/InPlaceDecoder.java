package io.postlog.types;

import org.jspecify.annotations.Nullable;

/**
 * Base of the decoders that read a binary value in place, from the slice of the message
 * that holds it: a whole value is the slice that covers it, so nothing is copied.
 */
abstract class InPlaceDecoder extends BuiltinDecoder {

	InPlaceDecoder(int oid) {
		super(oid);
	}

	@Override
	final @Nullable Object binary(byte[] value) {
		return binary(value, 0, value.length);
	}

	@Override
	abstract @Nullable Object binary(byte[] source, int offset, int length);

}
