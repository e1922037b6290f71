package io.postlog.pgoutput;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * One column value of a {@link TupleData}, as pgoutput sends it (protocol section
 * "TupleData"): SQL {@code NULL} ({@code 'n'}), an unchanged TOASTed value that was not
 * sent ({@code 'u'}), text ({@code 't'}) or binary ({@code 'b'}). {@code toString()}
 * never prints the bytes.
 */
public sealed interface TupleValue {

	/** SQL {@code NULL}. */
	TupleValue NULL = new Null();

	/** An unchanged TOASTed value the server did not send. */
	TupleValue UNCHANGED_TOAST = new UnchangedToast();

	/**
	 * SQL {@code NULL}; use {@link TupleValue#NULL}.
	 */
	record Null() implements TupleValue {

	}

	/**
	 * An unchanged TOASTed value; use {@link TupleValue#UNCHANGED_TOAST}.
	 */
	record UnchangedToast() implements TupleValue {

	}

	/**
	 * A value in the type's text output format.
	 *
	 * @param bytes the UTF-8 text, owned by this record (not copied)
	 */
	record Text(byte[] bytes) implements TupleValue {

		@Override
		public boolean equals(@Nullable Object other) {
			return this == other || (other instanceof Text text && Arrays.equals(this.bytes, text.bytes));
		}

		@Override
		public int hashCode() {
			return Arrays.hashCode(this.bytes);
		}

		@Override
		public String toString() {
			return "Text[" + this.bytes.length + " bytes]";
		}

	}

	/**
	 * A value in the type's binary send format (protocol v2+ with {@code binary}).
	 *
	 * @param bytes the bytes, owned by this record (not copied)
	 */
	record Binary(byte[] bytes) implements TupleValue {

		@Override
		public boolean equals(@Nullable Object other) {
			return this == other || (other instanceof Binary binary && Arrays.equals(this.bytes, binary.bytes));
		}

		@Override
		public int hashCode() {
			return Arrays.hashCode(this.bytes);
		}

		@Override
		public String toString() {
			return "Binary[" + this.bytes.length + " bytes]";
		}

	}

}
