package io.postlog.spring.boot.autoconfigure;

import java.nio.file.Path;

import org.jspecify.annotations.Nullable;

import org.springframework.util.unit.DataSize;

/**
 * Settings for large transactions streamed while in progress (PostgreSQL 14+). Bound
 * under {@code postlog.streaming}, a group of {@link PostlogProperties}; not thread-safe,
 * bound once at start-up.
 */
public class PostlogStreamingProperties {

	/**
	 * Whether to have the server stream transactions larger than its
	 * logical_decoding_work_mem while they are in progress, instead of spilling them to
	 * its own disk until their commit. Needs PostgreSQL 14 or later; refused at start-up
	 * on older servers.
	 */
	private boolean enabled;

	/**
	 * Most bytes of in-progress streamed transactions kept on the heap, all together; the
	 * rest goes to spill files.
	 */
	private DataSize memory = DataSize.ofMegabytes(16);

	/**
	 * Directory under which each consumer keeps a private, owner-only directory of spill
	 * files. Defaults to the JVM's temporary directory (java.io.tmpdir); a tmpfs there
	 * holds the files in memory.
	 */
	private @Nullable Path spillDirectory;

	/**
	 * Most bytes of spill files, all in-progress transactions together; a transaction
	 * that needs more stops the consumer with an error naming the limit.
	 */
	private DataSize maxSpill = DataSize.ofGigabytes(10);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public DataSize getMemory() {
		return this.memory;
	}

	public void setMemory(DataSize memory) {
		this.memory = memory;
	}

	public @Nullable Path getSpillDirectory() {
		return this.spillDirectory;
	}

	public void setSpillDirectory(@Nullable Path spillDirectory) {
		this.spillDirectory = spillDirectory;
	}

	public DataSize getMaxSpill() {
		return this.maxSpill;
	}

	public void setMaxSpill(DataSize maxSpill) {
		this.maxSpill = maxSpill;
	}

}
