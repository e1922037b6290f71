package io.postlog.consumer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Transaction;
import io.postlog.consumer.delivery.AckWindow;
import org.jspecify.annotations.Nullable;

/**
 * Where a subscription's share of the stream goes, with its progress.
 */
abstract class Target {

	final Subscription subscription;

	Target(Subscription subscription) {
		this.subscription = subscription;
	}

	/**
	 * Makes the targets of a consumer's subscriptions: a change subscription with more
	 * than one lane runs on {@link Lanes}, every other one in place on the delivery
	 * thread.
	 */
	static List<Target> of(ConsumerConfig config, AckWindow window, ConsumerStates states, StopSignal stop,
			ConsumerThreads threads, @Nullable FailureLedger ledger, SubscriptionControls controls,
			Consumer<Throwable> onLaneFailure) {
		List<Target> targets = new ArrayList<>();
		for (Subscription subscription : config.subscriptions()) {
			AtomicBoolean interruptReported = new AtomicBoolean();
			SubscriptionControl control = controls.get(subscription.id());
			if (subscription.kind() == ListenerShape.Kind.CHANGE && subscription.concurrency() > 1) {
				List<ListenerRunner> runners = new ArrayList<>();
				for (int i = 0; i < subscription.concurrency(); i++) {
					runners.add(new ListenerRunner(subscription, config.retryPolicy(), window, states,
							config.listener(), stop, interruptReported, null, control));
				}
				long bytesPerLane = Math.max(1, config.readAheadBytes() / subscription.concurrency());
				targets.add(new LaneTarget(new Lanes(subscription, runners, bytesPerLane, window, threads,
						config.slotName(), stop, onLaneFailure)));
			}
			else {
				targets.add(new SerialTarget(new ListenerRunner(subscription, config.retryPolicy(), window, states,
						config.listener(), stop, interruptReported, ledger, control)));
			}
		}
		return targets;
	}

	void begin() {
	}

	/**
	 * Forgets the progress from a position on, for a subscription started again.
	 * @param from the first commit LSN to deliver again
	 */
	void rewindBefore(Lsn from) {
	}

	long change(Event.ChangeArrived arrived, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	long message(LogicalMessage message, AckWindow.Entry entry) {
		return 0;
	}

	long commit(Transaction transaction, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	long schema(Event.SchemaChanged changed, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	long snapshotChange(Event.ChangeArrived arrived, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	long snapshotCommit(Transaction batch, AckWindow.Entry entry) throws InterruptedException {
		return 0;
	}

	void awaitIdle() throws InterruptedException {
	}

	void close() {
	}

	/**
	 * Forgets the progress past a checkpoint, after a rolled-back sink transaction.
	 * @param checkpoint the checkpoint
	 */
	void resetTo(Lsn checkpoint) {
	}

	/** Whether a change at this position comes after {@code (lsn, index)}. */
	static boolean after(Change change, long lsn, int index) {
		int order = Long.compareUnsigned(change.commitLsn().value(), lsn);
		return order > 0 || (order == 0 && change.index() > index);
	}

}
