package io.postlog.consumer;

import io.postlog.Lsn;
import io.postlog.PostlogException;

/**
 * A handler threw while a transaction or message was delivered. The message names the
 * handler, the transaction's commit LSN, the table and the change's position, never row
 * values; the handler's own exception is the cause, untouched.
 */
public class HandlerFailedException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final transient Lsn lsn;

	/**
	 * Creates an exception.
	 * @param message what failed, without row values
	 * @param lsn the commit LSN of the failed transaction, or the LSN of a
	 * non-transactional message
	 * @param cause the handler's exception
	 */
	public HandlerFailedException(String message, Lsn lsn, Throwable cause) {
		super(message, cause);
		this.lsn = lsn;
	}

	/**
	 * Returns the commit LSN of the failed transaction, or the LSN of a non-transactional
	 * message.
	 * @return the position
	 */
	public Lsn lsn() {
		return this.lsn;
	}

}
