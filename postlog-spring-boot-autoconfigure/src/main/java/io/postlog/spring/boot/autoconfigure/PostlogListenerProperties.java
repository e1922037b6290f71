package io.postlog.spring.boot.autoconfigure;

import io.postlog.spring.boot.autoconfigure.PostlogProperties.ErrorHandler;

/**
 * Listener settings. Bound under {@code postlog.listener}, a group of
 * {@link PostlogProperties}; not thread-safe, bound once at start-up.
 */
public class PostlogListenerProperties {

	/**
	 * What happens to a change a listener kept failing on once its retries ran out, for
	 * listeners that name no error handler of their own.
	 */
	private ErrorHandler errorHandler = ErrorHandler.STOP;

	/**
	 * Table the dead-letter error handler writes to and DeadLetters replays from,
	 * "schema.table" or "table" (public); created when missing.
	 */
	private String deadLetterTable = "postlog_dead_letter";

	public ErrorHandler getErrorHandler() {
		return this.errorHandler;
	}

	public void setErrorHandler(ErrorHandler errorHandler) {
		this.errorHandler = errorHandler;
	}

	public String getDeadLetterTable() {
		return this.deadLetterTable;
	}

	public void setDeadLetterTable(String deadLetterTable) {
		this.deadLetterTable = deadLetterTable;
	}

}
