package io.postlog.consumer;

import io.postlog.Acknowledgment;
import io.postlog.Change;

/**
 * Receives changes as a {@link ChangeHandler} does, and owns their acknowledgement: the
 * slot moves past a change's transaction only after the {@link Acknowledgment} given with
 * each of its changes was acknowledged, which may happen later and on any thread.
 */
@FunctionalInterface
public interface AcknowledgingChangeHandler {

	/**
	 * Handles one change.
	 * @param change the change
	 * @param acknowledgment to acknowledge once the change's effect is safe
	 * @throws Exception to have the change retried (the acknowledgement of the failed
	 * attempt is then no longer waited for)
	 */
	void handle(Change change, Acknowledgment acknowledgment) throws Exception;

}
