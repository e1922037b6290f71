package io.postlog.consumer;

import java.util.Objects;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Transaction;
import org.jspecify.annotations.Nullable;

/**
 * The shape of a subscription's handler: what it is given (a change, a transaction or a
 * logical message) and whether it owns acknowledgements. Resolved once, when the
 * {@link Subscription} is made from a typed handler; delivery calls {@link #call} and
 * never looks at the handler's type again. Immutable and thread-safe as the handler is.
 */
sealed interface ListenerShape {

	/** What a handler is given. */
	enum Kind {

		CHANGE, TRANSACTION, MESSAGE

	}

	/**
	 * Returns what the handler is given.
	 * @return the kind
	 */
	Kind kind();

	/**
	 * Returns whether the handler takes an {@link Acknowledgment} and owns it.
	 * @return {@code true} for the acknowledging shapes
	 */
	boolean acknowledging();

	/**
	 * Calls the handler with the one item of its kind that is not {@code null}.
	 * @param change the change, for the change shapes
	 * @param transaction the transaction, for the transaction shapes
	 * @param message the message, for the message shape
	 * @param acknowledgment the acknowledgement, for the acknowledging shapes
	 * @throws Exception whatever the handler throws
	 */
	void call(@Nullable Change change, @Nullable Transaction transaction, @Nullable LogicalMessage message,
			@Nullable Acknowledgment acknowledgment) throws Exception;

	/** A {@link ChangeHandler}. */
	record OfChange(ChangeHandler handler) implements ListenerShape {

		@Override
		public Kind kind() {
			return Kind.CHANGE;
		}

		@Override
		public boolean acknowledging() {
			return false;
		}

		@Override
		public void call(@Nullable Change change, @Nullable Transaction transaction, @Nullable LogicalMessage message,
				@Nullable Acknowledgment acknowledgment) throws Exception {
			this.handler.handle(Objects.requireNonNull(change, "change"));
		}

	}

	/** An {@link AcknowledgingChangeHandler}. */
	record OfAcknowledgingChange(AcknowledgingChangeHandler handler) implements ListenerShape {

		@Override
		public Kind kind() {
			return Kind.CHANGE;
		}

		@Override
		public boolean acknowledging() {
			return true;
		}

		@Override
		public void call(@Nullable Change change, @Nullable Transaction transaction, @Nullable LogicalMessage message,
				@Nullable Acknowledgment acknowledgment) throws Exception {
			this.handler.handle(Objects.requireNonNull(change, "change"),
					Objects.requireNonNull(acknowledgment, "acknowledgment"));
		}

	}

	/** A {@link TransactionHandler}. */
	record OfTransaction(TransactionHandler handler) implements ListenerShape {

		@Override
		public Kind kind() {
			return Kind.TRANSACTION;
		}

		@Override
		public boolean acknowledging() {
			return false;
		}

		@Override
		public void call(@Nullable Change change, @Nullable Transaction transaction, @Nullable LogicalMessage message,
				@Nullable Acknowledgment acknowledgment) throws Exception {
			this.handler.handle(Objects.requireNonNull(transaction, "transaction"));
		}

	}

	/** An {@link AcknowledgingTransactionHandler}. */
	record OfAcknowledgingTransaction(AcknowledgingTransactionHandler handler) implements ListenerShape {

		@Override
		public Kind kind() {
			return Kind.TRANSACTION;
		}

		@Override
		public boolean acknowledging() {
			return true;
		}

		@Override
		public void call(@Nullable Change change, @Nullable Transaction transaction, @Nullable LogicalMessage message,
				@Nullable Acknowledgment acknowledgment) throws Exception {
			this.handler.handle(Objects.requireNonNull(transaction, "transaction"),
					Objects.requireNonNull(acknowledgment, "acknowledgment"));
		}

	}

	/** A {@link MessageHandler}. */
	record OfMessage(MessageHandler handler) implements ListenerShape {

		@Override
		public Kind kind() {
			return Kind.MESSAGE;
		}

		@Override
		public boolean acknowledging() {
			return false;
		}

		@Override
		public void call(@Nullable Change change, @Nullable Transaction transaction, @Nullable LogicalMessage message,
				@Nullable Acknowledgment acknowledgment) throws Exception {
			this.handler.handle(Objects.requireNonNull(message, "message"));
		}

	}

}
