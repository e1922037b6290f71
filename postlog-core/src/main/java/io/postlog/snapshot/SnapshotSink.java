package io.postlog.snapshot;

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

}
