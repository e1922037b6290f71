package io.postlog.spring;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import org.jspecify.annotations.Nullable;

/**
 * Calls a change-shaped listener ({@code Change}, {@code Row}, {@code Map} or a record)
 * once per change; each shape turns the change into its payload. Thread-safe, so lanes
 * may share it.
 */
abstract class ChangeInvoker {

	private final ListenerMethod method;

	ChangeInvoker(ListenerMethod method) {
		this.method = method;
	}

	final ListenerMethod method() {
		return this.method;
	}

	/**
	 * Whether this shape is given the change at all: row shapes are not given truncates.
	 * @param change a change that passed the listener's table and operation filters
	 * @return whether to call the listener
	 */
	boolean accepts(Change change) {
		return true;
	}

	/**
	 * Turns the change into the listener's argument.
	 * @param change an accepted change
	 * @return the payload
	 * @throws RuntimeException if the change cannot be bound (no values in the message)
	 */
	abstract Object payload(Change change);

	final void invoke(Change change, @Nullable Acknowledgment acknowledgment) {
		Object payload;
		try {
			payload = payload(change);
		}
		catch (RuntimeException ex) {
			throw this.method.failure(change, ex);
		}
		this.method.invoke(payload, change.commitLsn(), change.operation(), acknowledgment, change);
	}

	/** Gives the listener the change itself. */
	static final class ChangeParameter extends ChangeInvoker {

		ChangeParameter(ListenerMethod method) {
			super(method);
		}

		@Override
		Object payload(Change change) {
			return change;
		}

	}

}
