package io.postlog.snapshot;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot could not be taken, read or handed over. Messages name slots, tables, chunks
 * and LSNs, never row values.
 */
public class SnapshotException extends PostlogException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what went wrong, without row values
	 * @param cause the underlying failure, or {@code null}
	 */
	public SnapshotException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
