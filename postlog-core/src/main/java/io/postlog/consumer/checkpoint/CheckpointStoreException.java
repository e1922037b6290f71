package io.postlog.consumer.checkpoint;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * A checkpoint store could not read, write or set up its checkpoint: its table is missing
 * or has the wrong shape, the role may not create it, or the sink's database failed. The
 * message names the table and the slot, never row values; an SQL failure is kept as the
 * cause, with its SQLState.
 */
public class CheckpointStoreException extends PostlogException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what went wrong
	 * @param cause the underlying failure, if any
	 */
	public CheckpointStoreException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
