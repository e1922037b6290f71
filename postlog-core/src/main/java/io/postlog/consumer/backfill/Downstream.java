package io.postlog.consumer.backfill;

import java.time.Instant;
import java.util.List;

import io.postlog.Lsn;
import io.postlog.consumer.checkpoint.ChunkMark;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.Event;

/**
 * Where the {@link BackfillWindow} hands events on to: the consumer's dispatcher, which
 * delivers streamed events and chunk rows to the subscriptions. Called on the delivery
 * thread only.
 * <p>
 * Internal: public only so the consumer can implement it; not part of postlog's API, and
 * it may change in any release.
 */
public interface Downstream {

	/**
	 * Delivers one streamed event.
	 * @param event the event
	 * @throws InterruptedException if interrupted while waiting for room
	 */
	void deliver(Event event) throws InterruptedException;

	/**
	 * Returns whether a streamed transaction is open (begun and not committed): chunk
	 * rows go between transactions only.
	 * @return whether one is open
	 */
	boolean inTransaction();

	/**
	 * Delivers chunk rows as one batch of {@code SNAPSHOT} changes, outside any
	 * transaction.
	 * @param rows the rows
	 * @param point the commit position of the chunk's high watermark
	 * @param time the commit time of the chunk's high watermark
	 * @return the batch's entry in the acknowledgement window
	 * @throws InterruptedException if interrupted while waiting for room
	 */
	AckWindow.Entry snapshot(List<Event.ChangeArrived> rows, Lsn point, Instant time) throws InterruptedException;

	/**
	 * Ends a chunk delivered whole with an effect-once store: writes its mark into the
	 * open sink transaction and commits it with the chunk's rows.
	 * @param mark the chunk's mark
	 */
	void chunkDone(ChunkMark mark);

}
