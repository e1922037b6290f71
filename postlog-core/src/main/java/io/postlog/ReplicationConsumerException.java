package io.postlog;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * The consumer cannot go on, or cannot start, for a reason that retrying would not cure:
 * an invalid configuration, a transaction larger than the configured maximum, a stream
 * message the consumer does not handle. Messages never carry row values.
 */
public class ReplicationConsumerException extends PostlogException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what went wrong
	 */
	public ReplicationConsumerException(String message) {
		super(message);
	}

	/**
	 * Creates an exception with a cause.
	 * @param message what went wrong
	 * @param cause the underlying failure
	 */
	public ReplicationConsumerException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
