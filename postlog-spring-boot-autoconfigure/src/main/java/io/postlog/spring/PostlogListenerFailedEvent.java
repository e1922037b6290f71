package io.postlog.spring;

import io.postlog.Change;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEvent;

/**
 * Published when a listener's retries ran out and its error handler decided, whatever it
 * decided: the group stopped, or the change was skipped or dead-lettered. Published on
 * the thread that ran the listener, before the group stops or delivery goes on.
 */
public class PostlogListenerFailedEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final String listenerId;

	private final String group;

	private final String slotName;

	private final transient @Nullable Change change;

	private final ListenerExecutionFailedException exception;

	private final int attempts;

	private final Outcome outcome;

	/**
	 * Creates an event.
	 * @param source the registry
	 * @param listenerId the listener's id
	 * @param group the listener's group, empty for the default group
	 * @param slotName the group's slot
	 * @param change the change it failed on, {@code null} for a logical message
	 * @param exception the failure, with the listener's exception as cause
	 * @param attempts how many calls were made, the first included
	 * @param outcome what the error handler decided
	 */
	public PostlogListenerFailedEvent(Object source, String listenerId, String group, String slotName,
			@Nullable Change change, ListenerExecutionFailedException exception, int attempts, Outcome outcome) {
		super(source);
		this.listenerId = listenerId;
		this.group = group;
		this.slotName = slotName;
		this.change = change;
		this.exception = exception;
		this.attempts = attempts;
		this.outcome = outcome;
	}

	/**
	 * Returns the listener's id.
	 * @return the id
	 */
	public String listenerId() {
		return this.listenerId;
	}

	/**
	 * Returns the listener's group.
	 * @return the group, empty for the default group
	 */
	public String group() {
		return this.group;
	}

	/**
	 * Returns the group's replication slot.
	 * @return the slot name
	 */
	public String slotName() {
		return this.slotName;
	}

	/**
	 * Returns the change the listener failed on.
	 * @return the change, or {@code null} for a logical message
	 */
	public @Nullable Change change() {
		return this.change;
	}

	/**
	 * Returns the failure.
	 * @return the failure, with the listener's exception as cause
	 */
	public ListenerExecutionFailedException exception() {
		return this.exception;
	}

	/**
	 * Returns how many calls were made.
	 * @return the attempts, the first included
	 */
	public int attempts() {
		return this.attempts;
	}

	/**
	 * Returns what the error handler decided.
	 * @return the outcome
	 */
	public Outcome outcome() {
		return this.outcome;
	}

	/**
	 * What became of the change.
	 */
	public enum Outcome {

		/** The error handler threw: the listener's group is {@code FAILED}. */
		STOPPED,

		/** The change was skipped for this listener; delivery goes on. */
		SKIPPED,

		/** The change was written to the dead-letter table; delivery goes on. */
		DEAD_LETTERED

	}

}
