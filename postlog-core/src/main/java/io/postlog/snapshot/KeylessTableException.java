package io.postlog.snapshot;

import io.postlog.TableId;

/**
 * A backfill was asked for a table with neither a primary key nor a replica identity
 * index: its chunks cannot be read in key order, nor a streamed change matched to the
 * chunk row it must win over.
 */
public class KeylessTableException extends BackfillRefusedException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param table the table
	 */
	public KeylessTableException(TableId table) {
		super(table, "Table " + table + " has no primary key and no replica identity index, which a backfill pages "
				+ "through and matches streamed changes by: add a primary key (or REPLICA IDENTITY USING INDEX on a "
				+ "unique index) to backfill it; use an initial snapshot for keyless tables");
	}

}
