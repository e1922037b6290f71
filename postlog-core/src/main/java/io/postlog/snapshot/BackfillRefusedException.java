package io.postlog.snapshot;

import io.postlog.TableId;

/**
 * A table cannot be backfilled, for a reason retrying cannot change: it has no key to
 * page through and to match streamed changes by, or it is not a plain table. Names the
 * table, never row values.
 */
public class BackfillRefusedException extends SnapshotException {

	private static final long serialVersionUID = 1L;

	private final transient TableId table;

	/**
	 * Creates an exception.
	 * @param table the table
	 * @param message why, and what to do instead
	 */
	public BackfillRefusedException(TableId table, String message) {
		super(message, null);
		this.table = table;
	}

	/**
	 * Returns the table refused.
	 * @return the table
	 */
	public TableId table() {
		return this.table;
	}

}
