package io.postlog.consumer.delivery;

import io.postlog.Lsn;
import io.postlog.consumer.checkpoint.ChunkMark;

/**
 * A transactional checkpoint store as the {@link SinkTransaction} sees it: a sink's
 * effects and the checkpoint commit together, in one transaction that spans source
 * transactions. Called on the delivery thread.
 * <p>
 * Internal: public only so the consumer can adapt its checkpoint store to it; not part of
 * postlog's API, and it may change in any release.
 */
public interface CheckpointSink {

	/**
	 * Reads the checkpoint: the commit LSN of the last source transaction committed.
	 * @return the checkpoint, {@link Lsn#INVALID} if none
	 */
	Lsn load();

	/** Begins a sink transaction. */
	void begin();

	/**
	 * Writes the checkpoint into the sink transaction and commits it.
	 * @param commitLsn the commit LSN of the last source transaction it covers
	 */
	void commit(Lsn commitLsn);

	/** Rolls the sink transaction back. */
	void rollback();

	/**
	 * Writes a snapshot or backfill chunk's mark into the sink transaction.
	 * @param mark the chunk's mark
	 */
	void recordChunk(ChunkMark mark);

}
