package io.postlog.spring;

import io.postlog.consumer.AcknowledgingChangeHandler;
import io.postlog.consumer.AcknowledgingTransactionHandler;
import io.postlog.consumer.ChangeHandler;
import io.postlog.consumer.ErrorHandler;
import io.postlog.consumer.Subscription;
import io.postlog.consumer.TransactionHandler;
import org.jspecify.annotations.Nullable;

/**
 * Turns a listener endpoint into the consumer's {@link Subscription}: the handler kind of
 * its invoker (acknowledging when the method takes an {@code Acknowledgment}), its
 * filters, its lanes and its error handler.
 */
final class ListenerSubscriptions {

	private ListenerSubscriptions() {
	}

	static Subscription of(ListenerEndpoint endpoint, ErrorHandler errorHandler) {
		return of(endpoint, errorHandler, null);
	}

	/**
	 * Returns the subscription, each of whose calls runs in an observation when
	 * {@code observations} observe.
	 */
	static Subscription of(ListenerEndpoint endpoint, ErrorHandler errorHandler,
			@Nullable PostlogListenerObservations observations) {
		return of(endpoint, errorHandler, observations, null);
	}

	/**
	 * Returns the subscription, whose change listener's TOAST markers {@code toast} fills
	 * when it is not {@code null}.
	 */
	static Subscription of(ListenerEndpoint endpoint, ErrorHandler errorHandler,
			@Nullable PostlogListenerObservations observations, @Nullable ToastFiller toast) {
		PostlogListenerObservations observed = (observations != null && observations.observes()) ? observations : null;
		Object invoker = endpoint.invoker();
		Subscription subscription;
		if (invoker instanceof MessageInvoker messages) {
			subscription = (observed != null)
					? Subscription.onMessage(endpoint.id(),
							(message) -> observed.message(endpoint, message, () -> messages.invoke(message)))
					: Subscription.onMessage(endpoint.id(), messages::invoke);
		}
		else if (invoker instanceof SchemaInvoker schemas) {
			subscription = Subscription.onSchemaChange(endpoint.id(), schemas::invoke);
		}
		else if (invoker instanceof TransactionInvoker transactions) {
			subscription = transactions.method()
				.takesAcknowledgment()
						? Subscription
							.onTransaction(endpoint.id(),
									(observed != null)
											? (AcknowledgingTransactionHandler) (transaction, ack) -> observed
												.transaction(endpoint, transaction,
														() -> transactions.invoke(transaction, ack))
											: (AcknowledgingTransactionHandler) transactions::invoke)
						: Subscription.onTransaction(endpoint.id(),
								(observed != null)
										? (TransactionHandler) (transaction) -> observed.transaction(endpoint,
												transaction, () -> transactions.invoke(transaction, null))
										: (TransactionHandler) (transaction) -> transactions.invoke(transaction, null));
			subscription = subscription.withFilter(endpoint::matches);
		}
		else {
			ChangeInvoker unfilled = (ChangeInvoker) invoker;
			ChangeInvoker changes = (toast != null) ? toast.invoker(unfilled) : unfilled;
			subscription = changes.method().takesAcknowledgment()
					? Subscription.onChange(endpoint.id(),
							(observed != null)
									? (AcknowledgingChangeHandler) (change, ack) -> observed.change(endpoint, change,
											() -> changes.invoke(change, ack))
									: (AcknowledgingChangeHandler) changes::invoke)
					: Subscription.onChange(endpoint.id(),
							(observed != null)
									? (ChangeHandler) (change) -> observed.change(endpoint, change,
											() -> changes.invoke(change, null))
									: (ChangeHandler) (change) -> changes.invoke(change, null));
			subscription = subscription.withFilter(endpoint::matches).withConcurrency(endpoint.concurrency());
			if (unfilled instanceof RecordInvoker || changes.method().takesSchemaChange()) {
				subscription = subscription.withSchemaHandler(new ChangeListenerSchemaHandler(endpoint, unfilled));
			}
		}
		return subscription.withErrorHandler(errorHandler).withAutoStartup(endpoint.autoStartup());
	}

}
