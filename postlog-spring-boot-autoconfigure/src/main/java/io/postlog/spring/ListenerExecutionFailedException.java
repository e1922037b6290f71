package io.postlog.spring;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * A listener method threw, or what it was given could not be bound to its parameter. The
 * message names the listener and what it failed on (operation, table, commit LSN, change
 * id; or the message prefix), never a value; the listener's exception is the cause,
 * untouched. postlog wraps a listener's exception in exactly one of these.
 */
public class ListenerExecutionFailedException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String listenerId;

	private final String group;

	/**
	 * Creates an exception for a listener of the default group.
	 * @param listenerId the failing listener's id
	 * @param subject what was being delivered, without values
	 * @param cause what the listener threw
	 */
	public ListenerExecutionFailedException(String listenerId, String subject, @Nullable Throwable cause) {
		this(listenerId, "", subject, cause);
	}

	/**
	 * Creates an exception.
	 * @param listenerId the failing listener's id
	 * @param group the listener's group, empty for the default group
	 * @param subject what was being delivered, without values
	 * @param cause what the listener threw
	 */
	public ListenerExecutionFailedException(String listenerId, String group, String subject,
			@Nullable Throwable cause) {
		super("Listener '" + listenerId + "' failed on " + subject, cause);
		this.listenerId = listenerId;
		this.group = group;
	}

	/**
	 * Returns the failing listener's id.
	 * @return the id
	 */
	public String listenerId() {
		return this.listenerId;
	}

	/**
	 * Returns the failing listener's group.
	 * @return the group, empty for the default group
	 */
	public String group() {
		return this.group;
	}

}
