package io.postlog.consumer;

import java.util.Map;

import io.postlog.Lsn;
import io.postlog.consumer.checkpoint.ChunkMark;
import org.jspecify.annotations.Nullable;

/**
 * Where a consumer keeps its progress besides the replication slot. By default (no store
 * set on the builder) the slot's confirmed position is the only record: delivery is at
 * least once, and after a crash a transaction can reach a listener twice.
 * <p>
 * A <em>transactional</em> store makes a sink's effects and the checkpoint commit
 * together (effect-once): the consumer opens a sink transaction before the first handler
 * call of a source transaction ({@link #begin()}), lets the handlers do their work in it,
 * and {@link #commit(Lsn) commits} it with the source transaction's commit LSN as the new
 * checkpoint; one sink transaction may cover several source transactions. Source
 * transactions at or below the {@link #load() checkpoint} are acknowledged without
 * calling any handler, at start and after every reconnect. A handler that fails rolls the
 * sink transaction back ({@link #rollback()}), and everything after the checkpoint is
 * delivered again, to every handler, on a new connection; retries and the error handler
 * then work per change as usual. The slot is acknowledged past a source transaction only
 * after its sink transaction committed. A transactional store needs serial handlers that
 * return when their work is done: subscriptions with a concurrency above 1 or
 * acknowledging ones are refused.
 * <p>
 * Snapshots and backfills: a transactional store that {@link #recordsChunks() records
 * chunks} gets the rows of each chunk of an initial snapshot or a backfill in a sink
 * transaction of their own (streamed transactions delivered meanwhile may join it), and
 * the chunk's {@link ChunkMark} is written in it ({@link #recordChunk}) just before it
 * commits; after a crash, a chunk whose mark committed is not delivered again, and one
 * whose mark did not commit is delivered again whole. A transactional store that does not
 * record chunks is refused with snapshots and backfills.
 * <p>
 * Schema changes: a transactional store that {@link #recordsShapes() records shapes}
 * keeps, beside its checkpoint, the last known shape of each table as of that checkpoint
 * ({@link #recordShapes}, in the sink transaction that moves it). A new process starts
 * its schema tracking from them ({@link #shapes()}), so a schema change committed after
 * the checkpoint is announced after a restart too, before the first row in the new shape.
 * Without it, the first Relation message of each table after a restart is that table's
 * starting shape.
 * <p>
 * The consumer calls a store on its delivery thread only, one call at a time, but for
 * {@link #chunks} and {@link #forgetChunks}, which the backfill thread may call too.
 */
public interface CheckpointStore {

	/**
	 * Returns whether the store keeps its checkpoint in the sink's transactions.
	 * @return {@code true} for an effect-once store
	 */
	default boolean transactional() {
		return true;
	}

	/**
	 * Reads the checkpoint: the commit LSN of the last source transaction whose sink
	 * transaction committed.
	 * @return the checkpoint, or {@link Lsn#INVALID} when there is none yet
	 */
	Lsn load();

	/**
	 * Opens a sink transaction, on the delivery thread, before the handlers are called.
	 */
	void begin();

	/**
	 * Writes the checkpoint inside the open sink transaction and commits it.
	 * @param commitLsn the commit LSN of the last source transaction it covers
	 */
	void commit(Lsn commitLsn);

	/**
	 * Rolls the open sink transaction back. Must not throw for a transaction that is
	 * already gone.
	 */
	void rollback();

	/**
	 * Returns whether the store marks snapshot and backfill chunks in its sink
	 * transactions ({@link #recordChunk}), which snapshots and backfills need with a
	 * transactional store.
	 * @return {@code true} if it does
	 */
	default boolean recordsChunks() {
		return false;
	}

	/**
	 * Writes a chunk's mark inside the open sink transaction, which then commits with
	 * {@link #commit(Lsn)}.
	 * @param mark the mark
	 */
	default void recordChunk(ChunkMark mark) {
		throw new UnsupportedOperationException(this + " does not record chunks");
	}

	/**
	 * Reads the committed marks of a backfill, outside any sink transaction.
	 * @param backfillId the backfill
	 * @return its marks by part, empty when there are none
	 */
	default Map<Integer, ChunkMark> chunks(String backfillId) {
		return Map.of();
	}

	/**
	 * Deletes the marks of a backfill that ended, outside any sink transaction.
	 * @param backfillId the backfill
	 */
	default void forgetChunks(String backfillId) {
	}

	/**
	 * Returns whether the store keeps the tables' shapes with its checkpoint
	 * ({@link #recordShapes}).
	 * @return {@code true} if it does
	 */
	default boolean recordsShapes() {
		return false;
	}

	/**
	 * Writes tables' shapes inside the open sink transaction, which then commits with
	 * {@link #commit(Lsn)}: the consumer passes only those that changed since the last
	 * commit. A shape is the consumer's text (column names, types and flags, never a row
	 * value), kept as it is.
	 * @param shapes the shapes by relation OID; a {@code null} shape forgets the table
	 */
	default void recordShapes(Map<Long, @Nullable String> shapes) {
		throw new UnsupportedOperationException(this + " does not record shapes");
	}

	/**
	 * Reads the shapes committed with the checkpoint, outside any sink transaction.
	 * @return the shapes by relation OID, empty when there are none
	 */
	default Map<Long, String> shapes() {
		return Map.of();
	}

}
