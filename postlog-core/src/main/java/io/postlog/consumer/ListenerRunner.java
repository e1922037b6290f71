package io.postlog.consumer;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.SchemaChange;
import io.postlog.Transaction;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.FailureLedger;
import io.postlog.consumer.delivery.Runner;
import io.postlog.consumer.delivery.StopSignal;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls one subscription's handler (on the delivery thread, or on one lane) and keeps its
 * failures to itself: a failed call is logged once with the subscription, table,
 * operation, commit LSN and change id and the handler's exception, and retried alone with
 * the policy's back-off; when attempts run out the subscription's {@link ErrorHandler}
 * decides whether to skip, or to stop the subscription alone (its
 * {@link SubscriptionControl} holds the window at what failed; where it cannot hold a
 * position of its own the consumer fails). A subscription that is not running is not
 * called for what is at or past its position. Anything a handler throws counts as a
 * failure of that call, {@link Error}s included, except an {@link OutOfMemoryError} (or
 * another {@link VirtualMachineError} that is no stack overflow), after which nothing in
 * the JVM can be trusted: it fails the consumer at once. A handler that returns with its
 * thread's interrupt flag set has the flag cleared and reported. Not thread-safe: one
 * runner per thread.
 */
final class ListenerRunner implements Runner {

	private static final Logger logger = LoggerFactory.getLogger(ListenerRunner.class);

	private final Subscription subscription;

	private final RetryPolicy retry;

	private final AckWindow window;

	private final ConsumerStates states;

	private final ConsumerListener listener;

	private final StopSignal stop;

	private final AtomicBoolean interruptReported;

	private final @Nullable FailureLedger<HandlerFailedException> ledger;

	private final SubscriptionControl control;

	/**
	 * Creates a runner.
	 * @param subscription the subscription
	 * @param retry the retry policy
	 * @param window the window, for acknowledgements
	 * @param states the consumer's states
	 * @param listener the observer
	 * @param stop the stop signal
	 * @param interruptReported shared by the runners of a subscription, to warn once
	 * @param ledger for a transactional checkpoint store, where failures are counted
	 * across redeliveries (a failure then rolls back instead of retrying in place); else
	 * {@code null}
	 * @param control starts and stops the subscription
	 */
	ListenerRunner(Subscription subscription, RetryPolicy retry, AckWindow window, ConsumerStates states,
			ConsumerListener listener, StopSignal stop, AtomicBoolean interruptReported,
			@Nullable FailureLedger<HandlerFailedException> ledger, SubscriptionControl control) {
		this.subscription = subscription;
		this.retry = retry;
		this.window = window;
		this.states = states;
		this.listener = listener;
		this.stop = stop;
		this.interruptReported = interruptReported;
		this.ledger = ledger;
		this.control = control;
	}

	Subscription subscription() {
		return this.subscription;
	}

	/**
	 * Calls a change handler until it succeeds or is skipped.
	 * @param change the change
	 * @param entry its transaction's window entry
	 * @return how long the successful call took in nanoseconds, 0 when skipped
	 * @throws StopSignal.StopRequested if a stop ended a wait between attempts
	 * @throws HandlerFailedException if the error handler fails the consumer
	 */
	@Override
	public long change(Change change, AckWindow.Entry entry) {
		return call(change, null, null, null, entry, change.commitLsn());
	}

	@Override
	public long transaction(Transaction transaction, AckWindow.Entry entry) {
		return call(null, transaction, null, null, entry, transaction.commitLsn());
	}

	@Override
	public long message(LogicalMessage message, AckWindow.Entry entry) {
		return call(null, null, message, null, entry, message.lsn());
	}

	/**
	 * Calls the schema handler until it succeeds or is skipped.
	 * @param schema the schema change
	 * @param entry its transaction's window entry
	 * @return how long the successful call took in nanoseconds, 0 when skipped
	 */
	@Override
	public long schema(SchemaChange schema, AckWindow.Entry entry) {
		return call(null, null, null, schema, entry, schema.commitLsn());
	}

	/**
	 * Describes what a handler failed on, for messages: built only on failure.
	 */
	private static String subject(@Nullable Change change, @Nullable Transaction transaction,
			@Nullable LogicalMessage message, @Nullable SchemaChange schema) {
		if (schema != null) {
			return "schema change " + schema.describe();
		}
		if (change != null) {
			return "change " + change.index() + " of transaction xid " + change.xid() + " (" + change.operation()
					+ " on " + change.table() + ", commit LSN " + change.commitLsn() + ", change id " + change.id()
					+ ")";
		}
		if (transaction != null) {
			return "transaction xid " + transaction.xid() + " (commit LSN " + transaction.commitLsn() + ", "
					+ transaction.changes().size() + " changes)";
		}
		return "message with prefix '" + message.prefix() + "' at LSN " + message.lsn();
	}

	private String key(@Nullable Change change, @Nullable Transaction transaction, @Nullable LogicalMessage message,
			@Nullable SchemaChange schema) {
		String item = (schema != null) ? "schema/" + schema.commitLsn() + "/" + schema.table() + "/" + schema.kind()
				: (change != null) ? change.id()
						: (transaction != null) ? "tx/" + transaction.commitLsn() : "message/" + message.lsn();
		return this.subscription.id() + "/" + item;
	}

	private long call(@Nullable Change change, @Nullable Transaction transaction, @Nullable LogicalMessage message,
			@Nullable SchemaChange schema, AckWindow.Entry entry, Lsn lsn) {
		if (this.control.skips(entry.commitLsn)) {
			// Not running: the slot keeps this for when it starts again.
			return 0;
		}
		FailureLedger<HandlerFailedException> failures = this.ledger;
		if (failures != null && (message == null || message.transactional())) {
			return callRollingBack(change, transaction, message, schema, lsn, failures);
		}
		boolean retrying = false;
		try {
			for (int attempt = 1;; attempt++) {
				Acknowledgment acknowledgment = (this.subscription.acknowledging() && schema == null)
						? this.window.acknowledgment(entry, this.control.marks(),
								this.control.pending(lsn, (change != null) ? change.id() : null))
						: null;
				long start = System.nanoTime();
				Throwable failure = invoke(change, transaction, message, schema, acknowledgment);
				long nanos = System.nanoTime() - start;
				clearInterrupt();
				if (failure == null) {
					return nanos;
				}
				if (acknowledgment != null) {
					// The failed attempt's acknowledgement is no longer waited for.
					acknowledgment.acknowledge();
				}
				String subject = subject(change, transaction, message, schema);
				HandlerFailedException attemptFailure = new HandlerFailedException(
						"Subscription '" + this.subscription.id() + "' failed on " + subject + ", attempt " + attempt,
						this.subscription.id(), lsn, attempt, change, transaction, message, failure);
				if (!this.retry.canRetry(attempt)) {
					logger.warn("Subscription '{}' failed on {}, attempt {} of {}; its retries ran out",
							this.subscription.id(), subject, attempt, this.retry.maxAttempts(), failure);
					if (retrying) {
						// No longer retrying: the consumer's state is settled before the
						// error
						// handler's decision (a subscription STOPPED alone) is published.
						retrying = false;
						this.states.subscriptionRecovered();
					}
					decide(new HandlerFailedException(
							"Subscription '" + this.subscription.id() + "' failed on " + subject + " " + attempt
									+ " time(s); its retries ran out",
							this.subscription.id(), lsn, attempt, change, transaction, message, failure), entry);
					return 0;
				}
				Duration backOff = this.retry.backOff(attempt);
				logger.warn("Subscription '{}' failed on {}, attempt {} of {}; retrying in {} ms",
						this.subscription.id(), subject, attempt,
						(this.retry.maxAttempts() < 0) ? "unlimited" : this.retry.maxAttempts(), backOff.toMillis(),
						failure);
				if (!retrying) {
					retrying = true;
					this.states.subscriptionRetrying(attemptFailure);
				}
				notifyRetrying(attempt, backOff, attemptFailure);
				if (!this.stop.pause(backOff)) {
					throw new StopSignal.StopRequested();
				}
			}
		}
		finally {
			if (retrying) {
				this.states.subscriptionRecovered();
			}
		}
	}

	/**
	 * Calls a handler inside a sink transaction: a failure is counted, and instead of a
	 * retry in place the sink transaction is rolled back and everything after the
	 * checkpoint delivered again; what ran out of attempts goes to the error handler when
	 * it comes again, inside the sink transaction.
	 */
	private long callRollingBack(@Nullable Change change, @Nullable Transaction transaction,
			@Nullable LogicalMessage message, @Nullable SchemaChange schema, Lsn lsn,
			FailureLedger<HandlerFailedException> failures) {
		String key = failures.isEmpty() ? null : key(change, transaction, message, schema);
		HandlerFailedException exhausted = (key != null) ? failures.exhaustedFailure(key) : null;
		if (exhausted != null) {
			decide(exhausted, null);
			return 0;
		}
		long start = System.nanoTime();
		Throwable failure = invoke(change, transaction, message, schema, null);
		long nanos = System.nanoTime() - start;
		clearInterrupt();
		if (failure == null) {
			if (key != null) {
				failures.succeeded(key);
			}
			return nanos;
		}
		if (key == null) {
			key = key(change, transaction, message, schema);
		}
		String subject = subject(change, transaction, message, schema);
		int attempt = failures.failed(key);
		HandlerFailedException attemptFailure = new HandlerFailedException(
				"Subscription '" + this.subscription.id() + "' failed on " + subject + ", attempt " + attempt,
				this.subscription.id(), lsn, attempt, change, transaction, message, failure);
		if (!this.retry.canRetry(attempt)) {
			logger.warn(
					"Subscription '{}' failed on {}, attempt {} of {}; its retries ran out: the sink transaction "
							+ "is rolled back and its error handler decides when it is delivered again",
					this.subscription.id(), subject, attempt, this.retry.maxAttempts(), failure);
			failures.exhausted(key, lsn,
					new HandlerFailedException(
							"Subscription '" + this.subscription.id() + "' failed on " + subject + " " + attempt
									+ " time(s); its retries ran out",
							this.subscription.id(), lsn, attempt, change, transaction, message, failure));
			throw new FailureLedger.Redelivery(attemptFailure, Duration.ZERO);
		}
		Duration backOff = this.retry.backOff(attempt);
		logger.warn(
				"Subscription '{}' failed on {}, attempt {} of {}; the sink transaction is rolled back and "
						+ "delivery starts again at the checkpoint in {} ms",
				this.subscription.id(), subject, attempt,
				(this.retry.maxAttempts() < 0) ? "unlimited" : this.retry.maxAttempts(), backOff.toMillis(), failure);
		notifyRetrying(attempt, backOff, attemptFailure);
		throw new FailureLedger.Redelivery(attemptFailure, backOff);
	}

	/**
	 * Lets the error handler decide: a return skips; a throw stops the subscription alone
	 * when it can hold a position of its own ({@code entry} given, not a batch of rows),
	 * else fails the consumer.
	 */
	private void decide(HandlerFailedException exhausted, AckWindow.@Nullable Entry entry) {
		HandlerFailedException stop;
		try {
			this.subscription.errorHandler().handle(exhausted);
			logger.warn("Subscription '{}' skipped what it failed on: {}", this.subscription.id(),
					exhausted.getMessage());
			return;
		}
		catch (HandlerFailedException ex) {
			stop = ex;
		}
		catch (Exception ex) {
			stop = new HandlerFailedException(
					exhausted.getMessage() + "; its error handler failed with " + Failures.describe(ex),
					exhausted.subscriptionId(), exhausted.lsn(), exhausted.attempts(), exhausted.change(),
					exhausted.transaction(), exhausted.logicalMessage(), exhausted.getCause());
			stop.addSuppressed(ex);
		}
		if (entry == null || entry.rows || !this.control.independent()) {
			throw stop;
		}
		this.control.failed(stop, entry.commitLsn, this.window);
		logger.error("Subscription '{}' stopped: {}; the others go on, and the slot is confirmed no further than {} "
				+ "until it is started again", this.subscription.id(), stop.getMessage(), entry.commitLsn);
	}

	private @Nullable Throwable invoke(@Nullable Change change, @Nullable Transaction transaction,
			@Nullable LogicalMessage message, @Nullable SchemaChange schema, @Nullable Acknowledgment acknowledgment) {
		try {
			SchemaHandler schemas = this.subscription.schemaHandler();
			if (schema != null && schemas != null) {
				schemas.handle(schema);
				return null;
			}
			this.subscription.shape().call(change, transaction, message, acknowledgment);
			return null;
		}
		catch (VirtualMachineError ex) {
			if (ex instanceof StackOverflowError) {
				return ex;
			}
			throw ex;
		}
		catch (Throwable ex) {
			return ex;
		}
	}

	private void clearInterrupt() {
		if (Thread.interrupted() && !this.stop.requested()) {
			if (this.interruptReported.compareAndSet(false, true)) {
				logger.warn("Subscription '{}' returned with its thread's interrupt flag set; postlog cleared it "
						+ "(an interrupt does not stop a consumer: call stop())", this.subscription.id());
			}
			else {
				logger.debug("Subscription '{}' returned with its thread's interrupt flag set; cleared",
						this.subscription.id());
			}
		}
	}

	private void notifyRetrying(int attempt, Duration backOff, Throwable failure) {
		this.listener.retrying(attempt, backOff, failure);
	}

}
