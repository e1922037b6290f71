package io.postlog.admin;

import io.postlog.PostlogException;

/**
 * A slot of the requested name exists but cannot serve the request, for example a
 * permanent slot where a temporary one was asked for. postlog never drops or alters such
 * a slot: choose another slot name or remove it yourself.
 */
public class SlotConflictException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final SlotInfo existing;

	/**
	 * Creates an exception.
	 * @param message what does not fit
	 * @param existing the slot found on the server
	 */
	public SlotConflictException(String message, SlotInfo existing) {
		super(message);
		this.existing = existing;
	}

	/**
	 * Returns the slot found on the server.
	 * @return the existing slot
	 */
	public SlotInfo existing() {
		return this.existing;
	}

}
