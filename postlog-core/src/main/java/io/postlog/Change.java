package io.postlog;

import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One committed change to one table, as a listener receives it. Changes arrive in commit
 * order and, within a transaction, in WAL order; {@link #id()} is the same each time a
 * change is redelivered, so it can be used to drop duplicates.
 *
 * @param operation what happened
 * @param table the table changed
 * @param before the old row: for deletes and for updates when the server sent it (only
 * the replica identity columns unless the table has {@code REPLICA IDENTITY FULL}), else
 * {@code null}
 * @param after the new row for inserts, updates and snapshot reads, else {@code null}
 * @param xid the transaction id
 * @param commitLsn the transaction's commit LSN
 * @param commitTime the transaction's commit time
 * @param index the change's 0-based position in its transaction
 * @param id a key for this change, equal across redeliveries: slot, commit LSN and index
 */
public record Change(Operation operation, TableId table, @Nullable Row before, @Nullable Row after, long xid,
		Lsn commitLsn, Instant commitTime, int index, String id) {

	/**
	 * Creates a change.
	 * @param operation what happened
	 * @param table the table changed
	 * @param before the old row or {@code null}
	 * @param after the new row or {@code null}
	 * @param xid the transaction id
	 * @param commitLsn the commit LSN
	 * @param commitTime the commit time
	 * @param index the position in the transaction
	 * @param id the dedupe key
	 */
	public Change {
		Objects.requireNonNull(operation, "operation");
		Objects.requireNonNull(table, "table");
		Objects.requireNonNull(commitLsn, "commitLsn");
		Objects.requireNonNull(commitTime, "commitTime");
		Objects.requireNonNull(id, "id");
	}

	/**
	 * Returns the dedupe key postlog gives a change: {@code slot/commitLsn/index}.
	 * @param slot the slot name
	 * @param commitLsn the transaction's commit LSN
	 * @param index the change's position in the transaction
	 * @return the key
	 */
	public static String id(String slot, Lsn commitLsn, int index) {
		return slot + "/" + commitLsn + "/" + index;
	}

	/**
	 * Returns the row that identifies the changed row: {@link #after()} when present,
	 * else {@link #before()}. For a {@code DELETE} that is the old row, which holds only
	 * the replica-identity key columns unless the table has {@code REPLICA IDENTITY FULL}
	 * ({@link Row#isKeyOnly()}): read other columns with {@link Row#find(String)}.
	 * @return the row, or {@code null} for truncates
	 */
	public @Nullable Row row() {
		return (this.after != null) ? this.after : this.before;
	}

}
