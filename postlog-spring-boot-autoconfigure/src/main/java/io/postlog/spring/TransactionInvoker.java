package io.postlog.spring;

import io.postlog.Acknowledgment;
import io.postlog.Transaction;
import org.jspecify.annotations.Nullable;

/**
 * Calls a {@code Transaction} or {@code List<Change>} listener once per commit with the
 * matching changes (the consumer filters them before). Thread-safe.
 */
final class TransactionInvoker {

	private final ListenerMethod method;

	private final boolean asList;

	TransactionInvoker(ListenerMethod method, boolean asList) {
		this.method = method;
		this.asList = asList;
	}

	ListenerMethod method() {
		return this.method;
	}

	void invoke(Transaction transaction, @Nullable Acknowledgment acknowledgment) {
		Object payload = this.asList ? transaction.changes() : transaction;
		this.method.invoke(payload, transaction.commitLsn(), null, acknowledgment, transaction);
	}

}
