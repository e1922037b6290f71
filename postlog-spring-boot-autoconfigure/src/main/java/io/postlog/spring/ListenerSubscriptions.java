package io.postlog.spring;

import io.postlog.consumer.AcknowledgingChangeHandler;
import io.postlog.consumer.AcknowledgingTransactionHandler;
import io.postlog.consumer.ChangeHandler;
import io.postlog.consumer.ErrorHandler;
import io.postlog.consumer.Subscription;
import io.postlog.consumer.TransactionHandler;

/**
 * Turns a listener endpoint into the consumer's {@link Subscription}: the handler kind of
 * its invoker (acknowledging when the method takes an {@code Acknowledgment}), its
 * filters, its lanes and its error handler.
 */
final class ListenerSubscriptions {

	private ListenerSubscriptions() {
	}

	static Subscription of(ListenerEndpoint endpoint, ErrorHandler errorHandler) {
		Object invoker = endpoint.invoker();
		Subscription subscription;
		if (invoker instanceof MessageInvoker messages) {
			subscription = Subscription.onMessage(endpoint.id(), messages::invoke);
		}
		else if (invoker instanceof SchemaInvoker schemas) {
			subscription = Subscription.onSchemaChange(endpoint.id(), schemas::invoke);
		}
		else if (invoker instanceof TransactionInvoker transactions) {
			subscription = transactions.method().takesAcknowledgment()
					? Subscription.onTransaction(endpoint.id(), (AcknowledgingTransactionHandler) transactions::invoke)
					: Subscription.onTransaction(endpoint.id(),
							(TransactionHandler) (transaction) -> transactions.invoke(transaction, null));
			subscription = subscription.withFilter(endpoint::matches);
		}
		else {
			ChangeInvoker changes = (ChangeInvoker) invoker;
			subscription = changes.method().takesAcknowledgment()
					? Subscription.onChange(endpoint.id(), (AcknowledgingChangeHandler) changes::invoke)
					: Subscription.onChange(endpoint.id(), (ChangeHandler) (change) -> changes.invoke(change, null));
			subscription = subscription.withFilter(endpoint::matches).withConcurrency(endpoint.concurrency());
			if (changes instanceof RecordInvoker || changes.method().takesSchemaChange()) {
				subscription = subscription.withSchemaHandler(new ChangeListenerSchemaHandler(endpoint, changes));
			}
		}
		return subscription.withErrorHandler(errorHandler).withAutoStartup(endpoint.autoStartup());
	}

}
