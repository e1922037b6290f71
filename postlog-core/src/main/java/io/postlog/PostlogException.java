package io.postlog;

import java.sql.SQLException;

import org.jspecify.annotations.Nullable;

/**
 * Root of every exception postlog throws. Messages name tables, columns, type OIDs and
 * LSNs, never row values.
 */
public class PostlogException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception with a message.
	 * @param message what went wrong
	 */
	public PostlogException(String message) {
		super(message);
	}

	/**
	 * Creates an exception with a message and a cause.
	 * @param message what went wrong
	 * @param cause the underlying failure
	 */
	public PostlogException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

	/**
	 * Returns the SQLState of the first {@link SQLException} in the cause chain, for
	 * example {@code 55006} (object in use) or {@code 42704} (undefined object).
	 * @return the SQLState, or {@code null} if no SQL failure caused this
	 */
	public @Nullable String sqlState() {
		for (Throwable cause = getCause(); cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sqlException && sqlException.getSQLState() != null) {
				return sqlException.getSQLState();
			}
		}
		return null;
	}

}
