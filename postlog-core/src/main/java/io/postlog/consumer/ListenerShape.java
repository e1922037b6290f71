package io.postlog.consumer;

import java.util.Objects;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Transaction;
import io.postlog.consumer.delivery.Recipient.Kind;
import org.jspecify.annotations.Nullable;

/**
 * The shape of a subscription's handler: what it is given (a change, a transaction or a
 * logical message), whether it owns acknowledgements, and how it is called. Resolved
 * once, by the factory that matches the typed handler when the {@link Subscription} is
 * made; delivery calls {@link #call} and never looks at the handler's type again. A final
 * record made only by these six factories, so the set of shapes is closed. Immutable, and
 * thread-safe as the handler is.
 *
 * @param kind what the handler is given
 * @param acknowledging whether the handler takes an {@link Acknowledgment} and owns it
 * @param invocation the call of the handler
 */
record ListenerShape(Kind kind, boolean acknowledging, Call invocation) {

	/** What a handler is given. */
	/** Calls a handler with the one item of its kind that is not {@code null}. */
	@FunctionalInterface
	interface Call {

		void call(@Nullable Change change, @Nullable Transaction transaction, @Nullable LogicalMessage message,
				@Nullable Acknowledgment acknowledgment) throws Exception;

	}

	static ListenerShape change(ChangeHandler handler) {
		return new ListenerShape(Kind.CHANGE, false, (change, transaction, message, acknowledgment) -> handler
			.handle(Objects.requireNonNull(change, "change")));
	}

	static ListenerShape acknowledgingChange(AcknowledgingChangeHandler handler) {
		return new ListenerShape(Kind.CHANGE, true,
				(change, transaction, message, acknowledgment) -> handler.handle(
						Objects.requireNonNull(change, "change"),
						Objects.requireNonNull(acknowledgment, "acknowledgment")));
	}

	static ListenerShape transaction(TransactionHandler handler) {
		return new ListenerShape(Kind.TRANSACTION, false, (change, transaction, message, acknowledgment) -> handler
			.handle(Objects.requireNonNull(transaction, "transaction")));
	}

	static ListenerShape acknowledgingTransaction(AcknowledgingTransactionHandler handler) {
		return new ListenerShape(Kind.TRANSACTION, true,
				(change, transaction, message, acknowledgment) -> handler.handle(
						Objects.requireNonNull(transaction, "transaction"),
						Objects.requireNonNull(acknowledgment, "acknowledgment")));
	}

	static ListenerShape message(MessageHandler handler) {
		return new ListenerShape(Kind.MESSAGE, false, (change, transaction, message, acknowledgment) -> handler
			.handle(Objects.requireNonNull(message, "message")));
	}

	/**
	 * The shape of a schema subscription, whose handler is the subscription's
	 * {@link Subscription#schemaHandler()}: it is given no change, transaction or
	 * message.
	 * @return the shape
	 */
	static ListenerShape schema() {
		return new ListenerShape(Kind.SCHEMA, false, (change, transaction, message, acknowledgment) -> {
		});
	}

	/**
	 * Calls the handler with the one item of its kind that is not {@code null}.
	 * @param change the change, for the change shapes
	 * @param transaction the transaction, for the transaction shapes
	 * @param message the message, for the message shape
	 * @param acknowledgment the acknowledgement, for the acknowledging shapes
	 * @throws Exception whatever the handler throws
	 */
	void call(@Nullable Change change, @Nullable Transaction transaction, @Nullable LogicalMessage message,
			@Nullable Acknowledgment acknowledgment) throws Exception {
		this.invocation.call(change, transaction, message, acknowledgment);
	}

}
