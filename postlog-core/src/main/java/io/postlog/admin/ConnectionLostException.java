package io.postlog.admin;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * The connection to the server broke, was closed, went silent or could not be made in
 * time: SQLState class {@code 08}, an administrator or crash shutdown ({@code 57P01} to
 * {@code 57P03}), too many connections ({@code 53300}), an I/O failure, or a liveness
 * check of postlog's. A consumer retries it without a limit, since a server restart or a
 * failover must not end streaming.
 */
public class ConnectionLostException extends PostlogException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what was lost, and how it was noticed
	 * @param cause the underlying failure, if any
	 */
	public ConnectionLostException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
