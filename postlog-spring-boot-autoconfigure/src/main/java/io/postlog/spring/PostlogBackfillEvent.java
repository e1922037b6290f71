package io.postlog.spring;

import java.util.Objects;

import io.postlog.consumer.Backfill;

import org.springframework.context.ApplicationEvent;

/**
 * An event of a consumer group's backfill: {@link PostlogBackfillStartedEvent} or
 * {@link PostlogBackfillCompletedEvent}; listen to this type for both. Immutable but for
 * the live {@link Backfill} it carries.
 */
public abstract class PostlogBackfillEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final String group;

	private final transient Backfill backfill;

	/**
	 * Creates an event.
	 * @param source the group's consumer group
	 * @param group the group's name, empty for the default group
	 * @param backfill the backfill
	 */
	protected PostlogBackfillEvent(Object source, String group, Backfill backfill) {
		super(source);
		this.group = Objects.requireNonNull(group, "group");
		this.backfill = Objects.requireNonNull(backfill, "backfill");
	}

	/**
	 * Returns the group's name.
	 * @return the name, empty for the default group
	 */
	public String group() {
		return this.group;
	}

	/**
	 * Returns the backfill: its id, tables, state and progress.
	 * @return the backfill
	 */
	public Backfill backfill() {
		return this.backfill;
	}

}
