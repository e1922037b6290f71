package io.postlog.spring;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * A {@link PostlogFence#await} gave up: a group that reads the written tables had not
 * finished the write within the timeout (or the waiting thread was interrupted, which
 * stays flagged). The message names the group, the position waited for and the timeout,
 * never a value.
 */
public class FenceTimeoutException extends PostlogException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what was waited for, without values
	 * @param cause the interruption, or {@code null}
	 */
	public FenceTimeoutException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
