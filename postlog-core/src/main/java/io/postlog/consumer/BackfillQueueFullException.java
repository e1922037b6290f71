package io.postlog.consumer;

import io.postlog.PostlogException;

/**
 * A backfill was refused because the consumer already holds as many unfinished backfills
 * (pending or running) as it may
 * ({@link ReplicationConsumer.Builder#maxQueuedBackfills}). Raised before anything is
 * recorded or any statement runs; asking again once a backfill finished (or after
 * cancelling one) can succeed. Names the slot and the bound, never row values.
 */
public class BackfillQueueFullException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final int maxQueued;

	/**
	 * Creates an exception.
	 * @param slotName the consumer's slot
	 * @param maxQueued the most unfinished backfills the consumer holds
	 */
	public BackfillQueueFullException(String slotName, int maxQueued) {
		super("Backfill refused: the consumer of slot " + slotName + " already holds " + maxQueued
				+ " unfinished backfills (pending or running), the most it queues; ask again once one finished, "
				+ "or cancel one");
		this.maxQueued = maxQueued;
	}

	/**
	 * Returns the most unfinished backfills the consumer holds.
	 * @return the bound
	 */
	public int maxQueued() {
		return this.maxQueued;
	}

}
