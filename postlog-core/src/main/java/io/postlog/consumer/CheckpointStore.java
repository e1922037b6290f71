package io.postlog.consumer;

import io.postlog.Lsn;

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
 * The consumer calls a store on its delivery thread only, one call at a time.
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

}
