package io.postlog;

/**
 * A position in PostgreSQL's write-ahead log: an unsigned 64-bit byte offset, printed as
 * two hexadecimal halves ({@code 0/16B374D}). Immutable and ordered by position.
 *
 * @param value the position as the server's 64-bit {@code XLogRecPtr}
 */
public record Lsn(long value) implements Comparable<Lsn> {

	/** The invalid position {@code 0/0}, which the server uses for "none". */
	public static final Lsn INVALID = new Lsn(0);

	/**
	 * Returns the LSN for a 64-bit value.
	 * @param value the position
	 * @return the LSN
	 */
	public static Lsn of(long value) {
		return (value != 0) ? new Lsn(value) : INVALID;
	}

	/**
	 * Parses the server's text form, {@code X/Y} with up to eight hexadecimal digits on
	 * each side.
	 * @param text the text to parse
	 * @return the LSN
	 * @throws IllegalArgumentException if the text is not an LSN
	 */
	public static Lsn parse(String text) {
		int slash = text.indexOf('/');
		if (slash < 1 || slash > 8 || text.length() - slash - 1 < 1 || text.length() - slash - 1 > 8) {
			throw new IllegalArgumentException("Not an LSN (expected X/Y in hexadecimal): '" + text + "'");
		}
		long high = parseHex(text, 0, slash);
		long low = parseHex(text, slash + 1, text.length());
		return of((high << 32) | low);
	}

	private static long parseHex(String text, int start, int end) {
		long value = 0;
		for (int i = start; i < end; i++) {
			int digit = Character.digit(text.charAt(i), 16);
			if (digit < 0) {
				throw new IllegalArgumentException("Not an LSN (expected X/Y in hexadecimal): '" + text + "'");
			}
			value = (value << 4) | digit;
		}
		return value;
	}

	/**
	 * Returns the bytes of WAL from {@code other} to this position, negative when
	 * {@code other} lies ahead.
	 * @param other the earlier position
	 * @return the distance in bytes
	 */
	public long minus(Lsn other) {
		return this.value - other.value;
	}

	/**
	 * Returns whether this is {@link #INVALID}.
	 * @return {@code true} for {@code 0/0}
	 */
	public boolean isValid() {
		return this.value != 0;
	}

	/**
	 * Returns whether this position lies after {@code other}.
	 * @param other the position to compare with
	 * @return {@code true} if this one is later
	 */
	public boolean isAfter(Lsn other) {
		return compareTo(other) > 0;
	}

	/**
	 * Returns whether this position comes before another (unsigned comparison).
	 * @param other the other position
	 * @return {@code true} if this one is earlier
	 */
	public boolean isBefore(Lsn other) {
		return Long.compareUnsigned(this.value, other.value) < 0;
	}

	@Override
	public int compareTo(Lsn other) {
		return Long.compareUnsigned(this.value, other.value);
	}

	@Override
	public String toString() {
		return Long.toHexString(this.value >>> 32).toUpperCase() + "/"
				+ Long.toHexString(this.value & 0xFFFFFFFFL).toUpperCase();
	}

}
