package io.postlog.consumer;

import io.postlog.SchemaChange;

/**
 * Receives the schema changes of published tables, in commit order, each before the first
 * change of a row in its new shape, on the consumer's delivery thread (a change
 * subscription on lanes: once every lane is idle). An exception has the schema change
 * retried for this handler alone, with back-off, until the retry policy gives up and the
 * subscription's {@link ErrorHandler} decides, as for a change.
 */
@FunctionalInterface
public interface SchemaHandler {

	/**
	 * Handles one schema change.
	 * @param change the schema change
	 * @throws Exception to have it retried
	 */
	void handle(SchemaChange change) throws Exception;

}
