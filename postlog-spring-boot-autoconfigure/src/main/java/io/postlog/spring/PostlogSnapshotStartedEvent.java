package io.postlog.spring;

import java.util.List;
import java.util.Objects;

import io.postlog.Lsn;
import io.postlog.TableId;

import org.springframework.context.ApplicationEvent;

/**
 * Published when a consumer group begins a fresh initial snapshot
 * ({@code postlog.snapshot.mode=initial}) of a new slot, or of one recreated after it was
 * lost, before its first {@code SNAPSHOT} change, on the group's delivery thread;
 * delivery waits for the listeners of this event. A snapshot interrupted by a crash or a
 * stop is resumed, not taken again, and publishes no second event (its rows not yet
 * delivered come from a backfill, changes since its start from the stream): a read model
 * never needs to start over for it. Where the snapshot cannot resume (a slot recreated
 * after it was lost, whose changes in between were skipped; no backfills; a table without
 * a key) a snapshot taken again publishes this event again, and a read model built from
 * snapshot rows starts over here. An exception thrown by a listener ends this attempt,
 * which is retried after the back-off. Immutable.
 */
public class PostlogSnapshotStartedEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final String group;

	private final String slotName;

	private final Lsn consistentPoint;

	private final List<TableId> tables;

	/**
	 * Creates an event.
	 * @param source the group's consumer group
	 * @param group the group's name, empty for the default group
	 * @param slotName the group's slot
	 * @param consistentPoint the snapshot's consistent point, the commit LSN of its rows
	 * @param tables the tables it reads
	 */
	public PostlogSnapshotStartedEvent(Object source, String group, String slotName, Lsn consistentPoint,
			List<TableId> tables) {
		super(source);
		this.group = Objects.requireNonNull(group, "group");
		this.slotName = Objects.requireNonNull(slotName, "slotName");
		this.consistentPoint = Objects.requireNonNull(consistentPoint, "consistentPoint");
		this.tables = List.copyOf(tables);
	}

	/**
	 * Returns the group's name.
	 * @return the name, empty for the default group
	 */
	public String group() {
		return this.group;
	}

	/**
	 * Returns the group's slot.
	 * @return the slot name
	 */
	public String slotName() {
		return this.slotName;
	}

	/**
	 * Returns the snapshot's consistent point: its rows' commit LSN, after which the
	 * stream takes over.
	 * @return the consistent point
	 */
	public Lsn consistentPoint() {
		return this.consistentPoint;
	}

	/**
	 * Returns the tables the snapshot reads.
	 * @return the tables
	 */
	public List<TableId> tables() {
		return this.tables;
	}

}
