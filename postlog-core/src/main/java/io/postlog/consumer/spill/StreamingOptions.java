package io.postlog.consumer.spill;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How much of the in-progress streamed transactions a consumer keeps in memory, where it
 * spills the rest, and how much it may spill.
 *
 * @param memory the most bytes of buffered stream messages, all open transactions
 * together, kept on the heap
 * @param spillDirectory the directory under which each stream keeps a private directory
 * of spill files; shared safely by several consumers and processes
 * @param maxSpill the most bytes of spill files, all open transactions together; 0 allows
 * no spilling
 */
public record StreamingOptions(long memory, Path spillDirectory, long maxSpill) {

	public StreamingOptions {
		if (memory < 0) {
			throw new IllegalArgumentException("memory must not be negative, was " + memory);
		}
		Objects.requireNonNull(spillDirectory, "spillDirectory");
		if (maxSpill < 0) {
			throw new IllegalArgumentException("maxSpill must not be negative, was " + maxSpill);
		}
	}

}
