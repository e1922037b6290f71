package io.postlog.consumer.spill;

import io.postlog.ReplicationConsumerException;

/**
 * A streamed transaction needs more spill space than the configured maximum. Retrying
 * would not help: the server streams the same transaction again. Nothing of the
 * transaction, nor anything after it, has been delivered or acknowledged.
 */
public class SpillLimitExceededException extends ReplicationConsumerException {

	private static final long serialVersionUID = 1L;

	private final long limit;

	private final long xid;

	/**
	 * Creates an exception.
	 * @param limit the spill limit in bytes
	 * @param xid the transaction that needed more
	 * @param spilled the bytes spilled, all open transactions together, when it did
	 */
	public SpillLimitExceededException(long limit, long xid, long spilled) {
		super("Streamed transaction " + xid + " needs more spill space than the limit of " + limit
				+ " bytes (maxSpill); " + spilled + " bytes of open streamed transactions are spilled. "
				+ "Raise the limit, or turn streaming off to let the server buffer large transactions");
		this.limit = limit;
		this.xid = xid;
	}

	/**
	 * Returns the spill limit that was reached.
	 * @return the limit in bytes
	 */
	public long limit() {
		return this.limit;
	}

	/**
	 * Returns the id of the transaction that needed more spill space.
	 * @return the xid
	 */
	public long xid() {
		return this.xid;
	}

}
