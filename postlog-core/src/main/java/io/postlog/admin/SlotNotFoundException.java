package io.postlog.admin;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * A replication slot that must exist does not ({@code postlog.slot.lifecycle=existing},
 * or {@code START_REPLICATION} answered SQLState {@code 42704}).
 */
public class SlotNotFoundException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String slotName;

	/**
	 * Creates an exception.
	 * @param slotName the missing slot
	 * @param cause the server's error, if the server reported it
	 */
	public SlotNotFoundException(String slotName, @Nullable Throwable cause) {
		super("Replication slot '" + slotName + "' does not exist", cause);
		this.slotName = slotName;
	}

	/**
	 * Returns the missing slot's name.
	 * @return the slot name
	 */
	public String slotName() {
		return this.slotName;
	}

}
