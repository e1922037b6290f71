package io.postlog.admin;

import java.io.IOException;
import java.sql.SQLException;
import java.util.Locale;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * The one place where postlog reads meaning into SQLStates: it turns a server's
 * {@link SQLException} into the typed {@link PostlogException} callers branch on, so that
 * no other code compares SQLState strings. The cause is always kept, with its SQLState.
 * Stateless and thread-safe.
 */
public final class PgErrors {

	/** {@code 42501}: the role lacks a privilege. */
	static final String INSUFFICIENT_PRIVILEGE = "42501";

	/** {@code 42704}: a named object (slot, publication) does not exist. */
	static final String UNDEFINED_OBJECT = "42704";

	/**
	 * {@code 42710}: the object exists already; for a temporary slot, another session
	 * holds one of that name.
	 */
	static final String DUPLICATE_OBJECT = "42710";

	/** {@code 55006}: another process uses the object (streams from the slot). */
	static final String OBJECT_IN_USE = "55006";

	/**
	 * {@code 55000}: the object is not in the state the command needs; for a slot, it was
	 * invalidated, and as a warning of decoding on PostgreSQL 18, a change was skipped.
	 */
	static final String OBJECT_NOT_IN_PREREQUISITE_STATE = "55000";

	/**
	 * {@code 57014}: the statement was cancelled, for example by its statement timeout.
	 */
	static final String QUERY_CANCELED = "57014";

	/** {@code 58P01}: a file the server needs (a WAL segment) is gone. */
	static final String UNDEFINED_FILE = "58P01";

	/** {@code 22023}: a parameter's value (an output plugin's option) is not valid. */
	static final String INVALID_PARAMETER_VALUE = "22023";

	private PgErrors() {
	}

	/**
	 * Returns whether the failure means the connection is gone or could not be made, so
	 * that trying again later may succeed.
	 * @param ex the failure
	 * @return {@code true} for connection failures
	 */
	public static boolean isConnectionFailure(SQLException ex) {
		String state = ex.getSQLState();
		if (state == null) {
			return hasCause(ex, IOException.class);
		}
		return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")
				|| state.equals("53300") || state.equals("53000");
	}

	/**
	 * Returns whether the failure says the object is already there.
	 * @param ex the failure
	 * @return {@code true} for {@code 42710}
	 */
	public static boolean isDuplicateObject(SQLException ex) {
		return DUPLICATE_OBJECT.equals(ex.getSQLState());
	}

	/**
	 * Returns whether a {@code CREATE ... IF NOT EXISTS} failed because another session
	 * created the same object at the same moment: PostgreSQL checks existence before it
	 * takes the catalog's unique index, so the loser of the race gets {@code 23505} (on
	 * the catalog's index), {@code 42P07} (the relation) or, for a table, {@code 42710}
	 * ("type already exists": the winner committed between the check of the relation and
	 * the check of its row type; seen in a run of .ci/run); running the statement again
	 * finds the object.
	 * @param ex the failure
	 * @return {@code true} for {@code 23505}, {@code 42P07} and {@code 42710}
	 */
	public static boolean isConcurrentCreation(SQLException ex) {
		return "23505".equals(ex.getSQLState()) || "42P07".equals(ex.getSQLState()) || isDuplicateObject(ex);
	}

	/**
	 * Returns whether the failure says another process uses the object.
	 * @param ex the failure
	 * @return {@code true} for {@code 55006}
	 */
	public static boolean isObjectInUse(SQLException ex) {
		return OBJECT_IN_USE.equals(ex.getSQLState());
	}

	/**
	 * Returns whether the failure says a named object does not exist.
	 * @param ex the failure
	 * @return {@code true} for {@code 42704}
	 */
	public static boolean isUndefinedObject(SQLException ex) {
		return UNDEFINED_OBJECT.equals(ex.getSQLState());
	}

	/**
	 * Returns whether the failure (or warning) says the object is not in the state the
	 * command needs: an invalidated slot, or a change decoding skipped.
	 * @param ex the failure or warning
	 * @return {@code true} for {@code 55000}
	 */
	public static boolean isObjectNotInPrerequisiteState(SQLException ex) {
		return OBJECT_NOT_IN_PREREQUISITE_STATE.equals(ex.getSQLState());
	}

	/**
	 * Returns whether the statement was cancelled, for example by its statement timeout.
	 * @param ex the failure
	 * @return {@code true} for {@code 57014}
	 */
	public static boolean isQueryCanceled(SQLException ex) {
		return QUERY_CANCELED.equals(ex.getSQLState());
	}

	/**
	 * Returns whether the failure says a file the server needs, such as a WAL segment,
	 * was removed.
	 * @param ex the failure
	 * @return {@code true} for {@code 58P01}
	 */
	public static boolean isUndefinedFile(SQLException ex) {
		return UNDEFINED_FILE.equals(ex.getSQLState());
	}

	/**
	 * Returns whether the failure says a parameter's value, such as an output plugin's
	 * option, is not valid.
	 * @param ex the failure
	 * @return {@code true} for {@code 22023}
	 */
	public static boolean isInvalidParameterValue(SQLException ex) {
		return INVALID_PARAMETER_VALUE.equals(ex.getSQLState());
	}

	/**
	 * Returns the failure's SQLState for a message or log line, never to branch on: use
	 * the predicates of this class for that.
	 * @param ex the failure
	 * @return the five-character SQLState, or {@code null} if the driver set none
	 */
	public static @Nullable String sqlState(SQLException ex) {
		return ex.getSQLState();
	}

	/**
	 * Returns whether the failure says the role lacks a privilege.
	 * @param ex the failure
	 * @return {@code true} for {@code 42501}
	 */
	public static boolean isInsufficientPrivilege(SQLException ex) {
		return INSUFFICIENT_PRIVILEGE.equals(ex.getSQLState());
	}

	/**
	 * Translates a failure of a replication connection (connecting, creating a temporary
	 * slot, {@code START_REPLICATION}, streaming or sending status) into the exception a
	 * consumer branches on.
	 * @param ex the failure
	 * @param slotName the slot being streamed
	 * @param streaming whether the stream had started ({@code START_REPLICATION}
	 * answered); an undefined object then is a publication, before it a slot, unless the
	 * server names the routine that failed
	 * @param message what was being done, for other failures
	 * @return {@link ConnectionLostException}, {@link SlotInUseException} ({@code 55006},
	 * or {@code 42710} for a temporary slot another session holds),
	 * {@link SlotNotFoundException} or {@link PublicationNotFoundException}
	 * ({@code 42704}), {@link InsufficientPrivilegeException} ({@code 42501}), else a
	 * {@link PostlogException} with the failure as cause
	 */
	public static PostlogException translateReplication(SQLException ex, String slotName, boolean streaming,
			String message) {
		if (isConnectionFailure(ex)) {
			return new ConnectionLostException(message + ": the connection failed (" + describe(ex) + ")", ex);
		}
		if (isObjectInUse(ex) || isDuplicateObject(ex)) {
			return new SlotInUseException(slotName, null, ex);
		}
		if (isUndefinedObject(ex)) {
			return undefinedObject(ex, slotName, streaming);
		}
		if (isInsufficientPrivilege(ex)) {
			return new InsufficientPrivilegeException("(connecting role)", "stream from replication slots", ex);
		}
		return new PostlogException(message + " (" + describe(ex) + ")", ex);
	}

	private static PostlogException undefinedObject(SQLException ex, String slotName, boolean streaming) {
		String routine = routine(ex);
		boolean publication = (routine != null) ? routine.contains("publication") : streaming;
		if (publication) {
			return new PublicationNotFoundException(publicationName(ex), ex);
		}
		return new SlotNotFoundException(slotName, ex);
	}

	/**
	 * Returns the name the server quoted in an "undefined object" message, which for a
	 * publication is the publication's name; {@code "?"} when there is none.
	 */
	private static String publicationName(SQLException ex) {
		ServerErrorMessage server = (ex instanceof PSQLException psql) ? psql.getServerErrorMessage() : null;
		String text = (server != null) ? server.getMessage() : null;
		if (text != null) {
			int open = text.indexOf('"');
			int close = text.lastIndexOf('"');
			if (open >= 0 && close > open) {
				return text.substring(open + 1, close);
			}
		}
		return "?";
	}

	private static @Nullable String routine(SQLException ex) {
		if (ex instanceof PSQLException psql && psql.getServerErrorMessage() != null) {
			String routine = psql.getServerErrorMessage().getRoutine();
			return (routine != null) ? routine.toLowerCase(Locale.ROOT) : null;
		}
		return null;
	}

	/**
	 * Describes a failure by SQLState and exception type only: the server's message text
	 * can quote values.
	 * @param ex the failure
	 * @return for example {@code SQLState 08006, PSQLException}
	 */
	public static String describe(SQLException ex) {
		return "SQLState " + ex.getSQLState() + ", " + ex.getClass().getSimpleName();
	}

	/**
	 * Returns the first {@link SQLException} in a failure's cause chain, whose message is
	 * the server's text: logged or shown, it can quote row values.
	 * @param failure the failure
	 * @return the server's error, or {@code null} if the chain holds none
	 */
	public static @Nullable SQLException serverError(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql) {
				return sql;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return null;
	}

	private static boolean hasCause(Throwable ex, Class<? extends Throwable> type) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return true;
			}
		}
		return false;
	}

}
