package io.postlog.consumer.backfill;

import java.time.Duration;
import java.util.Map;

import io.postlog.consumer.checkpoint.ChunkMark;

/**
 * What the backfill room reads from the consumer that hosts it, and what it tells it: the
 * slot and publication, the retry and reconnect policies, whether the stream runs, how a
 * failure is described without a value, and when a backfill starts and completes.
 * Thread-safe: called from the backfill thread and the delivery thread.
 * <p>
 * Internal: public only so the consumer can implement it; not part of postlog's API, and
 * it may change in any release.
 */
public interface BackfillHost {

	/**
	 * Returns the consumer's slot.
	 * @return the slot name
	 */
	String slotName();

	/**
	 * Returns the consumer's publication.
	 * @return the publication name
	 */
	String publicationName();

	/**
	 * Returns whether a failure other than a lost connection may be retried.
	 * @param failedAttempts the attempts that failed so far
	 * @return whether to retry
	 */
	boolean canRetry(int failedAttempts);

	/**
	 * Returns how long to wait before retrying after a failure other than a lost
	 * connection.
	 * @param failedAttempts the attempts that failed so far
	 * @return the back-off
	 */
	Duration retryBackOff(int failedAttempts);

	/**
	 * Returns how long to wait before connecting again after a lost connection.
	 * @param failedAttempts the attempts that failed so far
	 * @return the back-off
	 */
	Duration reconnectBackOff(int failedAttempts);

	/**
	 * Returns whether the stream runs (the consumer is {@code RUNNING} or
	 * {@code RETRYING}), so that chunks can be read.
	 * @return whether it runs
	 */
	boolean streaming();

	/**
	 * Returns whether the consumer ended ({@code FAILED} or {@code STOPPED}).
	 * @return whether it ended
	 */
	boolean ended();

	/**
	 * Describes a failure without any message that may hold a value.
	 * @param failure the failure
	 * @return its description
	 */
	String describe(Throwable failure);

	/**
	 * Tells that a backfill started running.
	 * @param backfill the backfill
	 */
	void started(BackfillJob backfill);

	/**
	 * Tells that a backfill completed: every part read and every chunk delivered.
	 * @param backfill the backfill
	 */
	void completed(BackfillJob backfill);

	/**
	 * Returns whether chunk rows commit in the sink's transactions with the chunk's mark
	 * (the consumer's checkpoint store is transactional): a chunk then goes whole at its
	 * high watermark.
	 * @return whether chunks are effect-once
	 */
	boolean effectOnce();

	/**
	 * Returns the chunk marks the sink committed for a backfill, by part; none unless
	 * {@link #effectOnce()}.
	 * @param backfillId the backfill
	 * @return the marks
	 * @throws io.postlog.PostlogException if they cannot be read
	 */
	Map<Integer, ChunkMark> chunkMarks(String backfillId);

	/**
	 * Deletes the sink's chunk marks of a backfill that ended; does nothing unless
	 * {@link #effectOnce()}. A failure is logged, not thrown: the marks of an ended
	 * backfill are never read again.
	 * @param backfillId the backfill
	 */
	void forgetChunkMarks(String backfillId);

}
