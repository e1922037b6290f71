package io.postlog;

import org.jspecify.annotations.Nullable;

/**
 * Root of every exception postlog throws. Messages name tables, columns, type OIDs and
 * LSNs, never row values.
 */
public class PostlogException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception with a message.
	 * @param message what went wrong
	 */
	public PostlogException(String message) {
		super(message);
	}

	/**
	 * Creates an exception with a message and a cause.
	 * @param message what went wrong
	 * @param cause the underlying failure
	 */
	public PostlogException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
