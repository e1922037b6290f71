package io.postlog.consumer.delivery;

import java.time.Instant;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.SchemaChange;
import org.jspecify.annotations.Nullable;

/**
 * What the reader thread hands to the delivery thread, in stream order, with the payload
 * size it came from (which bounds read-ahead). Immutable.
 * <p>
 * Internal: public only so the consumer can use it; not part of postlog's API, and it may
 * change in any release.
 */
public sealed interface Event {

	/**
	 * Returns the size of the payload the event was decoded from.
	 * @return the bytes
	 */
	int bytes();

	/**
	 * A transaction begins.
	 *
	 * @param xid the transaction id
	 * @param commitLsn the LSN of its commit record
	 * @param commitTime the commit time
	 * @param bytes the payload size
	 */
	record Begin(long xid, Lsn commitLsn, Instant commitTime, int bytes) implements Event {

	}

	/**
	 * One change of the open transaction.
	 *
	 * @param change the change
	 * @param route the lane routing key: a hash of the table and the replica-identity key
	 * of the row after the change (of the row before it for deletes), or of the table
	 * alone when it has no usable key
	 * @param previousRoute for an update that changed the key, the routing key of the old
	 * key; else the same as {@code route}
	 * @param bytes the payload size
	 */
	record ChangeArrived(Change change, int route, int previousRoute, int bytes) implements Event {

	}

	/**
	 * A logical decoding message: inside the open transaction when transactional, else on
	 * its own.
	 *
	 * @param message the message
	 * @param bytes the payload size
	 */
	record MessageArrived(LogicalMessage message, int bytes) implements Event {

	}

	/**
	 * A schema change seen in the open transaction, before its first change in the new
	 * shape.
	 *
	 * @param schemaChange the schema change
	 * @param sequence its position among the open transaction's schema changes, from 0
	 * @param bytes the payload size
	 */
	record SchemaChanged(SchemaChange schemaChange, int sequence, int bytes) implements Event {

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
	 * @param bytes the payload size
	 */
	record Commit(long xid, Lsn commitLsn, Lsn endLsn, Instant commitTime, @Nullable String origin, int changeCount,
			int bytes) implements Event {

	}

}
