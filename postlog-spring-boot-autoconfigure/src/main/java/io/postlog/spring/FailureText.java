package io.postlog.spring;

import java.sql.SQLException;

import io.postlog.PostlogException;
import io.postlog.admin.PgErrors;
import org.jspecify.annotations.Nullable;

/**
 * What postlog shows of a failure outside its logs, on the actuator endpoint and in
 * health: the message of a {@link PostlogException}, postlog's own text, which names
 * listeners, slots, tables, LSNs and change ids and never a row value; of any other
 * exception (a listener's own, a driver's) only its class and SQLState, unless messages
 * are asked for ({@code postlog.endpoint.show-exception-messages}), since such messages
 * often carry row values. Stateless and thread-safe.
 */
public final class FailureText {

	private FailureText() {
	}

	/**
	 * Describes a failure.
	 * @param failure the failure, or {@code null}
	 * @param withMessages whether to show the message of an exception that is not
	 * postlog's
	 * @return the text, or {@code null} for no failure
	 */
	public static @Nullable String of(@Nullable Throwable failure, boolean withMessages) {
		if (failure == null) {
			return null;
		}
		if (failure instanceof PostlogException && failure.getMessage() != null) {
			return failure.getMessage();
		}
		if (withMessages) {
			return failure.toString();
		}
		String text = failure.getClass().getName();
		if (failure instanceof SQLException sql && PgErrors.sqlState(sql) != null) {
			text += " (SQLState " + PgErrors.sqlState(sql) + ")";
		}
		return text;
	}

}
