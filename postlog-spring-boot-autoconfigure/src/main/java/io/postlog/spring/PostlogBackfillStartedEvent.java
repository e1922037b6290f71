package io.postlog.spring;

import io.postlog.consumer.Backfill;

/**
 * Published when a consumer group's backfill begins, or resumes after a restart (also the
 * backfill that resumes an interrupted initial snapshot,
 * {@link Backfill#resumesSnapshot()}), before the first of its rows is read, on the
 * group's backfill thread: every {@code SNAPSHOT} change delivered from then until its
 * {@link PostlogBackfillCompletedEvent} (or until its {@link Backfill#state()} says it
 * failed or was cancelled) is one of its rows. Immutable but for the live
 * {@link Backfill} it carries.
 */
public class PostlogBackfillStartedEvent extends PostlogBackfillEvent {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an event.
	 * @param source the group's consumer group
	 * @param group the group's name, empty for the default group
	 * @param backfill the backfill
	 */
	public PostlogBackfillStartedEvent(Object source, String group, Backfill backfill) {
		super(source, group, backfill);
	}

}
