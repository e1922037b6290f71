package io.postlog.admin;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * Another process holds the replication slot (SQLState {@code 55006}, object in use): a
 * consumer waits in standby and retries; {@link ReplicationAdmin#dropSlot(String)}
 * refuses to drop it.
 */
public class SlotInUseException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String slotName;

	private final @Nullable Integer activePid;

	/**
	 * Creates an exception.
	 * @param slotName the slot
	 * @param activePid the process holding it, if known
	 * @param cause the server's error, if the server reported it
	 */
	public SlotInUseException(String slotName, @Nullable Integer activePid, @Nullable Throwable cause) {
		super("Replication slot '" + slotName + "' is in use by "
				+ ((activePid != null) ? "process " + activePid : "another process"), cause);
		this.slotName = slotName;
		this.activePid = activePid;
	}

	/**
	 * Returns the slot's name.
	 * @return the slot name
	 */
	public String slotName() {
		return this.slotName;
	}

	/**
	 * Returns the server process holding the slot.
	 * @return the process id, or {@code null} if not known
	 */
	public @Nullable Integer activePid() {
		return this.activePid;
	}

}
