package io.postlog.spring;

import io.postlog.Change;
import io.postlog.Operation;

/**
 * Calls a record or JavaBean listener with the row after the change (before it, for
 * deletes) bound by {@link RowBinder}; truncates are not given to it. Thread-safe.
 */
final class RecordInvoker extends ChangeInvoker {

	private final RowBinder binder;

	RecordInvoker(ListenerMethod method, RowBinder binder) {
		super(method);
		this.binder = binder;
	}

	RowBinder binder() {
		return this.binder;
	}

	@Override
	boolean accepts(Change change) {
		return change.operation() != Operation.TRUNCATE && change.row() != null;
	}

	@Override
	Object payload(Change change) {
		return this.binder.bind(change.row(), change.table());
	}

}
