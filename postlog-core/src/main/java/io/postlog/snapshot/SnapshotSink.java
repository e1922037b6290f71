package io.postlog.snapshot;

import java.util.List;

import io.postlog.Change;

/**
 * Receives the rows of a snapshot, one {@link io.postlog.Operation#SNAPSHOT} change at a
 * time, always on the thread that called {@link SnapshotReader#read}. While it runs, the
 * readers stop once the bounded hand-off is full, so a slow sink slows the read instead
 * of filling memory. An exception it throws ends the read and is rethrown by
 * {@link SnapshotReader#read} unchanged.
 */
@FunctionalInterface
public interface SnapshotSink {

	/**
	 * Takes one snapshot row.
	 * @param change the row, as a change with {@code after} set and {@code before}
	 * {@code null}
	 */
	void accept(Change change);

	/**
	 * Learns every chunk the read is split into, before the first row. A sink that
	 * records them can read the chunks not yet done again after a crash.
	 * @param chunks the chunks of every table, in table order
	 */
	default void planned(List<ChunkRange> chunks) {
	}

	/**
	 * Learns that the last row of a chunk was accepted.
	 * @param chunk the chunk, as {@link #planned} gave it
	 */
	default void chunkDone(ChunkRange chunk) {
	}

}
