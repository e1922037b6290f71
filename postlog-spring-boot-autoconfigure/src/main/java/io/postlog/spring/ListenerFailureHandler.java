package io.postlog.spring;

import java.util.List;

import io.postlog.Change;
import io.postlog.consumer.ErrorHandler;
import io.postlog.consumer.HandlerFailedException;

/**
 * Hands a listener's exhausted failure to its {@link PgListenerErrorHandler}, records it
 * as the listener's last error and publishes a {@link PostlogListenerFailedEvent} with
 * the decision. Thread-safe when the handler is.
 */
final class ListenerFailureHandler implements ErrorHandler {

	private final ListenerEndpoint endpoint;

	private final PgListenerErrorHandler handler;

	private final PostlogConsumerGroup group;

	ListenerFailureHandler(ListenerEndpoint endpoint, PgListenerErrorHandler handler, PostlogConsumerGroup group) {
		this.endpoint = endpoint;
		this.handler = handler;
		this.group = group;
	}

	@Override
	public void handle(HandlerFailedException failure) throws Exception {
		ListenerExecutionFailedException exception = unwrap(failure);
		List<Change> changes = (failure.change() != null) ? List.of(failure.change())
				: (failure.transaction() != null) ? failure.transaction().changes() : List.of();
		if (changes.isEmpty()) {
			// A logical message has no change to give an error handler: only stop and
			// skip apply.
			boolean stop = this.handler == PgListenerErrorHandler.STOP;
			decided(failure, null, exception,
					stop ? PostlogListenerFailedEvent.Outcome.STOPPED : PostlogListenerFailedEvent.Outcome.SKIPPED);
			if (stop) {
				throw failure;
			}
			return;
		}
		for (Change change : changes) {
			try {
				this.handler.handleError(change, exception);
			}
			catch (Exception ex) {
				decided(failure, change, exception, PostlogListenerFailedEvent.Outcome.STOPPED);
				throw (ex == exception) ? failure : ex;
			}
			decided(failure, change, exception, (this.handler instanceof PostlogDeadLetterErrorHandler)
					? PostlogListenerFailedEvent.Outcome.DEAD_LETTERED : PostlogListenerFailedEvent.Outcome.SKIPPED);
		}
	}

	private void decided(HandlerFailedException failure, @org.jspecify.annotations.Nullable Change change,
			ListenerExecutionFailedException exception, PostlogListenerFailedEvent.Outcome outcome) {
		this.group.listenerFailed(failure, outcome.name());
		this.group.publish(new PostlogListenerFailedEvent(this.group, this.endpoint.id(), this.endpoint.group(),
				this.group.slotName(), change, exception, failure.attempts(), outcome));
	}

	private ListenerExecutionFailedException unwrap(HandlerFailedException failure) {
		if (failure.getCause() instanceof ListenerExecutionFailedException exception) {
			return exception;
		}
		return new ListenerExecutionFailedException(this.endpoint.id(), this.endpoint.group(),
				"commit LSN " + failure.lsn(), failure.getCause());
	}

}
