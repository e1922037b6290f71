package io.postlog.pgoutput;

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
	 * A value in the type's text output format: {@code length} bytes of UTF-8 text in
	 * {@code source} from {@code offset} (a slice of the message it was decoded from, not
	 * a copy).
	 *
	 * @param source the array holding the value
	 * @param offset where the value starts
	 * @param length the value's length
	 */
	record Text(byte[] source, int offset, int length) implements TupleValue {

		/**
		 * Creates a value.
		 * @param source the array
		 * @param offset the start
		 * @param length the length
		 */
		public Text {
			Slices.check(source, offset, length);
		}

		/**
		 * Creates a value that is a whole array.
		 * @param bytes the UTF-8 text, owned by this record (not copied)
		 */
		public Text(byte[] bytes) {
			this(bytes, 0, bytes.length);
		}

		/**
		 * Returns the value's bytes: the source array itself when the value is all of it,
		 * else a copy.
		 * @return the bytes
		 */
		public byte[] bytes() {
			return Slices.bytes(this.source, this.offset, this.length);
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return this == other || (other instanceof Text text
					&& Slices.equal(this.source, this.offset, this.length, text.source, text.offset, text.length));
		}

		@Override
		public int hashCode() {
			return Slices.hash(this.source, this.offset, this.length);
		}

		@Override
		public String toString() {
			return "Text[" + this.length + " bytes]";
		}

	}

	/**
	 * A value in the type's binary send format (protocol v2+ with {@code binary}):
	 * {@code length} bytes in {@code source} from {@code offset} (a slice of the message
	 * it was decoded from, not a copy).
	 *
	 * @param source the array holding the value
	 * @param offset where the value starts
	 * @param length the value's length
	 */
	record Binary(byte[] source, int offset, int length) implements TupleValue {

		/**
		 * Creates a value.
		 * @param source the array
		 * @param offset the start
		 * @param length the length
		 */
		public Binary {
			Slices.check(source, offset, length);
		}

		/**
		 * Creates a value that is a whole array.
		 * @param bytes the bytes, owned by this record (not copied)
		 */
		public Binary(byte[] bytes) {
			this(bytes, 0, bytes.length);
		}

		/**
		 * Returns the value's bytes: the source array itself when the value is all of it,
		 * else a copy.
		 * @return the bytes
		 */
		public byte[] bytes() {
			return Slices.bytes(this.source, this.offset, this.length);
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return this == other || (other instanceof Binary binary && Slices.equal(this.source, this.offset,
					this.length, binary.source, binary.offset, binary.length));
		}

		@Override
		public int hashCode() {
			return Slices.hash(this.source, this.offset, this.length);
		}

		@Override
		public String toString() {
			return "Binary[" + this.length + " bytes]";
		}

	}

}
