package io.postlog.snapshot;

/**
 * An initial snapshot was asked for where none can be handed over to the stream, for
 * example on a slot that must already exist and so already has a position. Raised before
 * anything is created or dropped.
 */
public class SnapshotRefusedException extends SnapshotException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message why, and what to do instead
	 */
	public SnapshotRefusedException(String message) {
		super(message, null);
	}

}
