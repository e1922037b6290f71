package io.postlog.consumer;

import java.time.Instant;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * What the reader thread hands to the delivery thread, in stream order. Immutable.
 */
sealed interface Event {

	/**
	 * A transaction begins.
	 *
	 * @param xid the transaction id
	 * @param commitLsn the LSN of its commit record
	 * @param commitTime the commit time
	 */
	record Begin(long xid, Lsn commitLsn, Instant commitTime) implements Event {

	}

	/**
	 * One change of the open transaction.
	 *
	 * @param change the change
	 */
	record ChangeArrived(Change change) implements Event {

	}

	/**
	 * A logical decoding message: inside the open transaction when transactional, else on
	 * its own.
	 *
	 * @param message the message
	 */
	record MessageArrived(LogicalMessage message) implements Event {

	}

	/**
	 * The open transaction commits.
	 *
	 * @param xid the transaction id
	 * @param commitLsn the LSN of the commit record
	 * @param endLsn the position to acknowledge once delivered
	 * @param commitTime the commit time
	 * @param origin the replication origin, or {@code null}
	 * @param changeCount how many changes the transaction had for this consumer
	 */
	record Commit(long xid, Lsn commitLsn, Lsn endLsn, Instant commitTime, @Nullable String origin,
			int changeCount) implements Event {

	}

}
