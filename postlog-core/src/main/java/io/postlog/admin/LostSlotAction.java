package io.postlog.admin;

/**
 * What to do when the slot is found lost ({@link SlotLostException}).
 */
public enum LostSlotAction {

	/** Fail: start-up fails, or a running consumer stops. The default. */
	FAIL,

	/**
	 * Drop the lost slot, create a new one and go on from the server's current position,
	 * logging loudly that the changes in between were skipped.
	 */
	RECREATE

}
