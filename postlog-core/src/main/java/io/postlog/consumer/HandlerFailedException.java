package io.postlog.consumer;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.Transaction;
import org.jspecify.annotations.Nullable;

/**
 * A handler kept failing on what it was given until its retries ran out. The message
 * names the subscription, the transaction's commit LSN, the table, operation and change
 * id, never row values; the handler's own exception is the cause, untouched. What failed
 * is available to an {@link ErrorHandler} through {@link #change()},
 * {@link #transaction()} or {@link #logicalMessage()}; those are not part of the message
 * and are not serialized.
 */
public class HandlerFailedException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String subscriptionId;

	private final transient Lsn lsn;

	private final int attempts;

	private final transient @Nullable Change change;

	private final transient @Nullable Transaction transaction;

	private final transient @Nullable LogicalMessage logicalMessage;

	/**
	 * Creates an exception.
	 * @param message what failed, without row values
	 * @param subscriptionId the id of the failing subscription
	 * @param lsn the commit LSN of the failed transaction, or the LSN of a
	 * non-transactional message
	 * @param attempts how many calls were made
	 * @param change the change that failed, for a change handler
	 * @param transaction the transaction that failed, for a transaction handler
	 * @param logicalMessage the message that failed, for a message handler
	 * @param cause the handler's exception
	 */
	public HandlerFailedException(String message, String subscriptionId, Lsn lsn, int attempts, @Nullable Change change,
			@Nullable Transaction transaction, @Nullable LogicalMessage logicalMessage, Throwable cause) {
		super(message, cause);
		this.subscriptionId = subscriptionId;
		this.lsn = lsn;
		this.attempts = attempts;
		this.change = change;
		this.transaction = transaction;
		this.logicalMessage = logicalMessage;
	}

	/**
	 * Returns the id of the subscription whose handler failed.
	 * @return the id
	 */
	public String subscriptionId() {
		return this.subscriptionId;
	}

	/**
	 * Returns the commit LSN of the failed transaction, or the LSN of a non-transactional
	 * message.
	 * @return the position
	 */
	public Lsn lsn() {
		return this.lsn;
	}

	/**
	 * Returns how many calls were made, the first included.
	 * @return the attempts
	 */
	public int attempts() {
		return this.attempts;
	}

	/**
	 * Returns the change a change handler failed on.
	 * @return the change, or {@code null} for other handlers
	 */
	public @Nullable Change change() {
		return this.change;
	}

	/**
	 * Returns the transaction a transaction handler failed on.
	 * @return the transaction, or {@code null} for other handlers
	 */
	public @Nullable Transaction transaction() {
		return this.transaction;
	}

	/**
	 * Returns the message a message handler failed on.
	 * @return the message, or {@code null} for other handlers
	 */
	public @Nullable LogicalMessage logicalMessage() {
		return this.logicalMessage;
	}

}
