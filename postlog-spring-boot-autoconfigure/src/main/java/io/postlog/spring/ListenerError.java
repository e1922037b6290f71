package io.postlog.spring;

import java.time.Instant;

import io.postlog.Change;
import io.postlog.consumer.HandlerFailedException;
import org.jspecify.annotations.Nullable;

/**
 * A listener's latest failed attempt, as the actuator endpoint shows it: when, which
 * attempt, what it failed on (table, operation, commit LSN, change id) and the listener's
 * own exception (its class and message, as the listener wrote it).
 *
 * @param time when the attempt failed
 * @param attempt the failed attempt, 1 for the first call
 * @param table the table, or {@code null} for a logical message
 * @param operation the operation, or {@code null} for a transaction or message
 * @param commitLsn the transaction's commit LSN (a message's LSN)
 * @param changeId the change id, or {@code null} for a transaction or message
 * @param exception the class of the listener's exception
 * @param message the message of the listener's exception; the actuator endpoint shows it
 * only with {@code postlog.endpoint.show-exception-messages=true}, since it often carries
 * row values
 * @param outcome {@code RETRYING} while attempts remain, else what the error handler
 * decided
 */
public record ListenerError(Instant time, int attempt, @Nullable String table, @Nullable String operation,
		String commitLsn, @Nullable String changeId, String exception, @Nullable String message, String outcome) {

	/**
	 * Returns this error without the listener's message.
	 * @return the same error, {@code message} {@code null}
	 */
	public ListenerError withoutMessage() {
		return new ListenerError(this.time, this.attempt, this.table, this.operation, this.commitLsn, this.changeId,
				this.exception, null, this.outcome);
	}

	static ListenerError of(HandlerFailedException failure, String outcome) {
		Throwable cause = failure.getCause();
		if (cause instanceof ListenerExecutionFailedException wrapped && wrapped.getCause() != null) {
			cause = wrapped.getCause();
		}
		Change change = failure.change();
		String table = null;
		if (change != null) {
			table = change.table().toString();
		}
		else if (failure.transaction() != null && !failure.transaction().changes().isEmpty()) {
			table = failure.transaction().changes().get(0).table().toString();
		}
		return new ListenerError(Instant.now(), failure.attempts(), table,
				(change != null) ? change.operation().name() : null, failure.lsn().toString(),
				(change != null) ? change.id() : null, (cause != null) ? cause.getClass().getName() : "unknown",
				(cause != null) ? cause.getMessage() : null, outcome);
	}

}
