package io.postlog.spring;

import io.postlog.consumer.Backfill;

/**
 * Published when a consumer group's backfill completed: every listener finished every row
 * of it ({@link Backfill.State#COMPLETED}, {@link Backfill#rowsDone()} final), on the
 * group's backfill thread. A backfill that fails or is cancelled publishes no such event;
 * its {@link Backfill#state()} says so. Immutable but for the {@link Backfill} it
 * carries.
 */
public class PostlogBackfillCompletedEvent extends PostlogBackfillEvent {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an event.
	 * @param source the group's consumer group
	 * @param group the group's name, empty for the default group
	 * @param backfill the backfill
	 */
	public PostlogBackfillCompletedEvent(Object source, String group, Backfill backfill) {
		super(source, group, backfill);
	}

}
