package io.postlog.consumer.spill;

import java.nio.file.Path;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * The directory streamed transactions spill under cannot be used: it is not a directory,
 * cannot be created, or this process cannot create files in it. Thrown by
 * {@link io.postlog.consumer.ReplicationConsumer#start()} when streaming may spill,
 * before anything is set up on the server, so that the fault shows at start rather than
 * at the first large transaction. The message names the path and the reason.
 */
public class SpillDirectoryException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final transient Path directory;

	private final String reason;

	/**
	 * Creates an exception.
	 * @param directory the spill directory
	 * @param reason why it cannot be used
	 * @param cause the I/O failure, or {@code null}
	 */
	public SpillDirectoryException(Path directory, String reason, @Nullable Throwable cause) {
		super("Spill directory " + directory + " cannot be used: " + reason, cause);
		this.directory = directory;
		this.reason = reason;
	}

	/**
	 * Returns the spill directory.
	 * @return the path, absolute
	 */
	public Path directory() {
		return this.directory;
	}

	/**
	 * Returns why the directory cannot be used.
	 * @return the reason
	 */
	public String reason() {
		return this.reason;
	}

}
