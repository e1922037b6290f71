package io.postlog.spring;

import java.util.Map;

import io.postlog.Change;

/**
 * A bean that is a change listener without an annotated method, for adapters that take
 * changes on behalf of something else (Spring Integration's inbound channel adapter, for
 * example). The {@link PostlogListenerAnnotationBeanPostProcessor} registers each such
 * bean as if its {@link #onChange(Change)} method carried {@link PgChangeListener} with
 * the {@linkplain #listenerAttributes() attributes} it gives: the same groups, filters,
 * ordering, retries, error handlers and acknowledgement (when {@code onChange} returns).
 */
public interface PgChangeListenerEndpoint {

	/**
	 * Returns the {@link PgChangeListener} attributes of this listener by name
	 * ({@code id}, {@code tables}, {@code operations}, {@code concurrency},
	 * {@code group}, {@code errorHandler}, {@code autoStartup}); an attribute left out
	 * takes the annotation's default. Read once, when the bean has been initialised.
	 * @return the attributes; {@code id} should be given, unique in the application
	 */
	Map<String, Object> listenerAttributes();

	/**
	 * Receives a change, as a {@code Change} listener method does: on one of postlog's
	 * delivery threads, in commit order (per key with {@code concurrency} above 1). The
	 * change is acknowledged when this returns; what it throws is the listener's failure.
	 * @param change the change
	 * @throws Exception the listener's failure, retried and then given to its error
	 * handler
	 */
	void onChange(Change change) throws Exception;

}
