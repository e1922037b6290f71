package io.postlog.snapshot;

/**
 * A snapshot read ended before every row was delivered because it was cancelled or the
 * delivering thread was interrupted. The rows delivered so far are a partial snapshot:
 * the slot must not be handed over to the stream.
 */
public class SnapshotCancelledException extends SnapshotException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what was cancelled
	 */
	public SnapshotCancelledException(String message) {
		super(message, null);
	}

}
