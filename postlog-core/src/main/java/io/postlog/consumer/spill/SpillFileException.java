package io.postlog.consumer.spill;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * A spill file of a streamed transaction could not be written or read back as written: an
 * I/O error, a full disk, or a file that was truncated or changed. A new session (after a
 * reconnect) streams the transaction again into new files, so the consumer may retry. The
 * message names the file and the offset, never a row value.
 */
public class SpillFileException extends PostlogException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what failed, naming the file
	 * @param cause the I/O failure, or {@code null}
	 */
	public SpillFileException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
