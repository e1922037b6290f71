package io.postlog.pgoutput;

import java.util.Arrays;
import java.util.Objects;

/**
 * Helpers for values held as a slice of a message's array.
 */
final class Slices {

	private Slices() {
	}

	static void check(byte[] source, int offset, int length) {
		Objects.requireNonNull(source, "source");
		Objects.checkFromIndexSize(offset, length, source.length);
	}

	static byte[] bytes(byte[] source, int offset, int length) {
		return (offset == 0 && length == source.length) ? source : Arrays.copyOfRange(source, offset, offset + length);
	}

	static boolean equal(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
		return Arrays.equals(a, aOffset, aOffset + aLength, b, bOffset, bOffset + bLength);
	}

	static int hash(byte[] source, int offset, int length) {
		int hash = 1;
		for (int i = offset; i < offset + length; i++) {
			hash = 31 * hash + source[i];
		}
		return hash;
	}

}
