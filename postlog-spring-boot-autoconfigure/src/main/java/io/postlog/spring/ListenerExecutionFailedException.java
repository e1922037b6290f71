package io.postlog.spring;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * A listener method threw. Names the listener and the table (or message prefix), never a
 * value; the listener's exception is the cause.
 */
public class ListenerExecutionFailedException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String listenerId;

	/**
	 * Creates an exception.
	 * @param listenerId the failing listener's id
	 * @param subject the table or message prefix being delivered
	 * @param cause what the listener threw
	 */
	public ListenerExecutionFailedException(String listenerId, String subject, @Nullable Throwable cause) {
		super("Listener '" + listenerId + "' failed for " + subject, cause);
		this.listenerId = listenerId;
	}

	/**
	 * Returns the failing listener's id.
	 * @return the id
	 */
	public String listenerId() {
		return this.listenerId;
	}

}
