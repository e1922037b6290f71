package io.postlog.spring;

import java.util.LinkedHashSet;
import java.util.Set;

import io.postlog.Acknowledgment;
import io.postlog.Change;
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
		this.method.invoke(payload, transaction.commitLsn(), null, acknowledgment, subject(transaction));
	}

	static String subject(Transaction transaction) {
		Set<String> tables = new LinkedHashSet<>();
		for (Change change : transaction.changes()) {
			tables.add(change.table().toString());
		}
		return "transaction xid " + transaction.xid() + " on " + String.join(", ", tables) + " (commit LSN "
				+ transaction.commitLsn() + ", " + transaction.changes().size() + " changes)";
	}

}
