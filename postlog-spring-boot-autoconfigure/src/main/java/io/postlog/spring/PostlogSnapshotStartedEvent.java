package io.postlog.spring;

import java.util.List;
import java.util.Objects;

import io.postlog.Lsn;
import io.postlog.TableId;

import org.springframework.context.ApplicationEvent;

/**
 * Published when a consumer group begins an initial snapshot
 * ({@code postlog.snapshot.mode=initial}), before its first {@code SNAPSHOT} change, on
 * the group's delivery thread; delivery waits for the listeners of this event. A snapshot
 * taken again (after a crash, a lost connection or a failure, in this instance or
 * another) is a new state of the tables, and a row deleted since an interrupted snapshot
 * delivered it is not deleted by the next one: a read model built from snapshot rows
 * starts over here. An exception thrown by a listener ends this attempt, which is retried
 * after the back-off. Immutable.
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
