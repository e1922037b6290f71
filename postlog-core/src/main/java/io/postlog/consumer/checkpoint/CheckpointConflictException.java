package io.postlog.consumer.checkpoint;

import io.postlog.Lsn;

/**
 * The stored checkpoint moved while a sink transaction was open: another consumer of the
 * same slot (a replica that took the slot over while this one still delivered) committed
 * past the position this one started from. The sink transaction is rolled back, so the
 * same source transaction never commits twice, and delivery resumes from the stored
 * checkpoint.
 */
public class CheckpointConflictException extends CheckpointStoreException {

	private static final long serialVersionUID = 1L;

	private final Lsn expected;

	/**
	 * Creates an exception.
	 * @param table the checkpoint table
	 * @param slotName the slot whose row it is
	 * @param expected the checkpoint the sink transaction started from
	 * @param commitLsn the checkpoint it tried to write
	 */
	public CheckpointConflictException(String table, String slotName, Lsn expected, Lsn commitLsn) {
		super("The checkpoint of slot " + slotName + " in table " + table + " is no longer "
				+ (expected.isValid() ? "at " + expected : "absent")
				+ " (another consumer of the slot committed past it); the sink transaction up to " + commitLsn
				+ " is rolled back and delivery resumes from the stored checkpoint", null);
		this.expected = expected;
	}

	/**
	 * Returns the checkpoint the sink transaction started from.
	 * @return the position, {@link Lsn#INVALID} when there was none
	 */
	public Lsn expected() {
		return this.expected;
	}

}
