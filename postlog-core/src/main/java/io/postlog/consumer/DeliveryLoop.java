package io.postlog.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Transaction;
import org.jspecify.annotations.Nullable;

/**
 * Runs the handlers for events in stream order, on the delivery thread only. Keeps the
 * open transaction (its changes only when a transaction handler needs them) and moves the
 * acknowledged position once every handler for a transaction has returned.
 */
final class DeliveryLoop {

	private final @Nullable ChangeHandler changeHandler;

	private final @Nullable TransactionHandler transactionHandler;

	private final @Nullable MessageHandler messageHandler;

	private final int maxTransactionChanges;

	private final ConsumerListener listener;

	private final AckPosition acks;

	private Event.@Nullable Begin open;

	private final List<Change> buffered = new ArrayList<>();

	private long handlerNanos;

	DeliveryLoop(@Nullable ChangeHandler changeHandler, @Nullable TransactionHandler transactionHandler,
			@Nullable MessageHandler messageHandler, int maxTransactionChanges, ConsumerListener listener,
			AckPosition acks) {
		this.changeHandler = changeHandler;
		this.transactionHandler = transactionHandler;
		this.messageHandler = messageHandler;
		this.maxTransactionChanges = maxTransactionChanges;
		this.listener = listener;
		this.acks = acks;
	}

	/**
	 * Forgets a transaction left open by a failed or closed session; it is redelivered
	 * from its first change by the next one.
	 */
	void reset() {
		this.open = null;
		this.buffered.clear();
	}

	boolean inTransaction() {
		return this.open != null;
	}

	/**
	 * Delivers one event.
	 * @param event the event
	 * @return {@code true} if the acknowledged position moved
	 * @throws HandlerFailedException if a handler threw
	 * @throws ReplicationConsumerException if the transaction is too large or the events
	 * are out of order
	 */
	boolean deliver(Event event) {
		if (event instanceof Event.Begin begin) {
			if (this.open != null) {
				throw new ReplicationConsumerException(
						"Transaction xid " + begin.xid() + " began inside transaction xid " + this.open.xid()
								+ " (commit LSN " + this.open.commitLsn() + ")");
			}
			this.open = begin;
			this.buffered.clear();
			this.handlerNanos = 0;
			return false;
		}
		if (event instanceof Event.ChangeArrived arrived) {
			change(requireOpen("a change"), arrived.change());
			return false;
		}
		if (event instanceof Event.MessageArrived arrived) {
			return message(arrived.message());
		}
		return commit((Event.Commit) event);
	}

	private void change(Event.Begin begin, Change change) {
		if (this.transactionHandler != null) {
			if (this.buffered.size() >= this.maxTransactionChanges) {
				throw new ReplicationConsumerException("Transaction xid " + begin.xid() + " (commit LSN "
						+ begin.commitLsn() + ") has more than " + this.maxTransactionChanges
						+ " changes, the most a transaction handler can be given; raise maxTransactionChanges "
						+ "(postlog.max-transaction-changes) or use a change handler, which needs no buffering");
			}
			this.buffered.add(change);
		}
		if (this.changeHandler != null) {
			long start = System.nanoTime();
			try {
				this.changeHandler.handle(change);
			}
			catch (Exception ex) {
				throw new HandlerFailedException("Change handler failed on change " + change.index() + " ("
						+ change.operation() + " on " + change.table() + ") of transaction xid " + change.xid()
						+ " (commit LSN " + change.commitLsn() + ")", change.commitLsn(), ex);
			}
			long nanos = System.nanoTime() - start;
			this.handlerNanos += nanos;
			this.listener.changeDelivered(change, Duration.ofNanos(nanos));
		}
	}

	private boolean message(LogicalMessage message) {
		if (message.transactional()) {
			requireOpen("a transactional message");
		}
		if (this.messageHandler != null) {
			long start = System.nanoTime();
			try {
				this.messageHandler.handle(message);
			}
			catch (Exception ex) {
				Event.Begin begin = this.open;
				String where = (begin != null)
						? "in transaction xid " + begin.xid() + " (commit LSN " + begin.commitLsn() + ")"
						: "(non-transactional)";
				throw new HandlerFailedException("Message handler failed on message with prefix '" + message.prefix()
						+ "' at LSN " + message.lsn() + " " + where,
						(begin != null) ? begin.commitLsn() : message.lsn(), ex);
			}
			this.handlerNanos += System.nanoTime() - start;
		}
		// A message outside a transaction is covered by the idle acknowledgement.
		return !message.transactional();
	}

	private boolean commit(Event.Commit commit) {
		Event.Begin begin = requireOpen("a commit");
		Transaction transaction = new Transaction(commit.xid(), commit.commitLsn(), commit.endLsn(),
				commit.commitTime(), commit.origin(), this.buffered);
		if (this.transactionHandler != null && commit.changeCount() > 0) {
			long start = System.nanoTime();
			try {
				this.transactionHandler.handle(transaction);
			}
			catch (Exception ex) {
				throw new HandlerFailedException(
						"Transaction handler failed on transaction xid " + begin.xid() + " (commit LSN "
								+ commit.commitLsn() + ", " + commit.changeCount() + " changes)",
						commit.commitLsn(), ex);
			}
			this.handlerNanos += System.nanoTime() - start;
		}
		this.open = null;
		this.buffered.clear();
		if (commit.changeCount() > 0) {
			this.listener.transactionDelivered(transaction, Duration.ofNanos(this.handlerNanos));
		}
		this.acks.delivered(commit.endLsn());
		return true;
	}

	private Event.Begin requireOpen(String what) {
		Event.Begin begin = this.open;
		if (begin == null) {
			throw new ReplicationConsumerException("The stream sent " + what + " outside a transaction");
		}
		return begin;
	}

}
