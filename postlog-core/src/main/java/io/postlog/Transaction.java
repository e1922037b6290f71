package io.postlog;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One committed transaction with its changes in WAL order, as a transaction listener
 * receives it.
 *
 * @param xid the transaction id
 * @param commitLsn the LSN of the commit record
 * @param endLsn the LSN just past the commit record; the slot is acknowledged up to here
 * once every listener has returned
 * @param commitTime the commit time
 * @param origin the replication origin name when the transaction was replayed from
 * elsewhere, else {@code null}
 * @param changes the changes, in WAL order (copied)
 */
public record Transaction(long xid, Lsn commitLsn, Lsn endLsn, Instant commitTime, @Nullable String origin,
		List<Change> changes) {

	/**
	 * Creates a transaction.
	 * @param xid the transaction id
	 * @param commitLsn the commit LSN
	 * @param endLsn the end LSN
	 * @param commitTime the commit time
	 * @param origin the origin or {@code null}
	 * @param changes the changes
	 */
	public Transaction {
		Objects.requireNonNull(commitLsn, "commitLsn");
		Objects.requireNonNull(endLsn, "endLsn");
		Objects.requireNonNull(commitTime, "commitTime");
		changes = List.copyOf(changes);
	}

}
