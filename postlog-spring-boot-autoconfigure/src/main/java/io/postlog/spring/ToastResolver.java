package io.postlog.spring;

import java.util.Map;
import java.util.Set;

import io.postlog.Change;
import io.postlog.UnchangedToast;
import org.jspecify.annotations.Nullable;

/**
 * Supplies the values of TOASTed columns that an {@code UPDATE} left unchanged and the
 * server did not resend, for listeners with {@code @PgChangeListener(toast =
 * ToastPolicy.RESOLVER)}; typically it reads the row's last version from the listener's
 * own sink, which is cheaper and less racy than reading the source again.
 * <p>
 * Called on the listener's delivery thread (one of its lanes), before the listener, only
 * for changes whose after image holds at least one {@link UnchangedToast}; it must be
 * thread-safe when listeners run on several lanes. An exception it throws is the
 * listener's failure (retried, then its error handler decides).
 */
@FunctionalInterface
public interface ToastResolver {

	/**
	 * Returns the values of the unchanged TOASTed columns of a change.
	 * @param change the change, whose {@link Change#after()} holds the
	 * {@link UnchangedToast} markers
	 * @param columns the columns that hold the marker
	 * @return values by column name; a column left out keeps the marker
	 * @throws Exception if the values cannot be read
	 */
	Map<String, @Nullable Object> resolve(Change change, Set<String> columns) throws Exception;

}
