package io.postlog.spring;

import io.postlog.Change;

/**
 * Decides what becomes of a change a listener kept failing on once its retries
 * ({@code postlog.retry.*}) ran out. Returning skips that change for that listener alone:
 * the other listeners already had it, delivery goes on, and the slot may move past it.
 * Throwing stops that listener alone ({@code STOPPED}, with the failure as its cause):
 * the group's other listeners go on, the slot is confirmed no further than the failed
 * transaction, and the listener receives it again when started
 * ({@link PostlogListenerRegistry#start(String)}) or after a restart. With
 * {@code postlog.checkpoint.store=jdbc}, whose one checkpoint covers every listener of
 * the group, and for rows of an initial snapshot or a backfill, throwing stops the group
 * ({@code FAILED}) instead. Name a bean with
 * {@code @PgChangeListener(errorHandler = "beanName")}; the default is chosen with
 * {@code postlog.listener.error-handler} ({@code stop}, {@code skip} or
 * {@code dead-letter}).
 * <p>
 * Called on the thread that ran the listener, once per change (for a {@code Transaction}
 * or {@code List<Change>} listener, once for each change of the failed transaction it was
 * given, in order, until one call throws). Implementations used by listeners with
 * {@code concurrency} above 1 must be thread-safe.
 */
@FunctionalInterface
public interface PgListenerErrorHandler {

	/** Stops the listener alone: the default. */
	PgListenerErrorHandler STOP = (change, exception) -> {
		throw exception;
	};

	/**
	 * Skips the change: postlog logs it and counts it in
	 * {@code postlog.listener.skipped}.
	 */
	PgListenerErrorHandler SKIP = (change, exception) -> {
	};

	/**
	 * Handles a change whose retries ran out.
	 * @param change the change the listener failed on
	 * @param exception the failure, naming the listener, with the listener's own
	 * exception as its cause
	 * @throws Exception to stop the listener
	 */
	void handleError(Change change, ListenerExecutionFailedException exception) throws Exception;

}
