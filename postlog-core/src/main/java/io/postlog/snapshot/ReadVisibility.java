package io.postlog.snapshot;

import java.util.Arrays;

/**
 * Which transactions a read's snapshot saw, as {@code txid_current_snapshot()} reports
 * it: those below {@code xmin} and those below {@code xmax} but not in progress
 * ({@code xip}). Transaction ids are 64-bit (epoch and xid); {@link #sees(long)} takes
 * the 32-bit xid a stream sends and places it within 2^31 of {@code xmax}. Immutable.
 *
 * @param xmin the oldest transaction still running when the snapshot was taken
 * @param xmax one past the newest transaction that had finished
 * @param xip the transactions in progress, sorted
 */
public record ReadVisibility(long xmin, long xmax, long[] xip) {

	/**
	 * Creates a visibility record.
	 * @param xmin the oldest running transaction
	 * @param xmax one past the newest finished transaction
	 * @param xip the running transactions (copied and sorted)
	 */
	public ReadVisibility {
		xip = xip.clone();
		Arrays.sort(xip);
	}

	/**
	 * Parses {@code txid_current_snapshot()}'s text, {@code xmin:xmax:xip,...}.
	 * @param text the text
	 * @return the visibility
	 * @throws IllegalArgumentException if it is not in that form
	 */
	public static ReadVisibility parse(String text) {
		String[] parts = text.split(":", -1);
		if (parts.length != 3) {
			throw new IllegalArgumentException("Not a transaction snapshot");
		}
		long[] xip = parts[2].isEmpty() ? new long[0]
				: Arrays.stream(parts[2].split(",")).mapToLong(Long::parseLong).toArray();
		return new ReadVisibility(Long.parseLong(parts[0]), Long.parseLong(parts[1]), xip);
	}

	/**
	 * Returns whether a committed transaction's changes were visible to the read.
	 * @param xid the transaction's 32-bit id, as the stream sends it
	 * @return whether the read saw it
	 */
	public boolean sees(long xid) {
		// A committed transaction's id lies within 2^31 of xmax either way.
		long full = this.xmax + (int) (xid - this.xmax);
		if (full < this.xmin) {
			return true;
		}
		return full < this.xmax && Arrays.binarySearch(this.xip, full) < 0;
	}

	@Override
	public boolean equals(Object other) {
		return this == other || (other instanceof ReadVisibility that && this.xmin == that.xmin
				&& this.xmax == that.xmax && Arrays.equals(this.xip, that.xip));
	}

	@Override
	public int hashCode() {
		return 31 * Long.hashCode(this.xmin) + 17 * Long.hashCode(this.xmax) + Arrays.hashCode(this.xip);
	}

	@Override
	public String toString() {
		return this.xmin + ":" + this.xmax + ":" + this.xip.length + " in progress";
	}

}
