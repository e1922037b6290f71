package io.postlog.spring;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.Row;

/**
 * Calls a {@code Row} or {@code Map<String, Object>} listener with the row after the
 * change (before it, for deletes); truncates are not given to it. Thread-safe.
 */
final class RowInvoker extends ChangeInvoker {

	private final boolean asMap;

	RowInvoker(ListenerMethod method, boolean asMap) {
		super(method);
		this.asMap = asMap;
	}

	@Override
	boolean accepts(Change change) {
		return change.operation() != Operation.TRUNCATE && change.row() != null;
	}

	@Override
	Object payload(Change change) {
		Row row = change.row();
		return this.asMap ? row.asMap() : row;
	}

}
