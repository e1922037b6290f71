package io.postlog.consumer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.postlog.Change;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.ConsumerThreads;
import io.postlog.consumer.delivery.FailureLedger;
import io.postlog.consumer.delivery.LaneTarget;
import io.postlog.consumer.delivery.Lanes;
import io.postlog.consumer.delivery.Recipient;
import io.postlog.consumer.delivery.SerialTarget;
import io.postlog.consumer.delivery.StopSignal;
import io.postlog.consumer.delivery.Target;
import org.jspecify.annotations.Nullable;

/**
 * Makes the delivery targets of a consumer's subscriptions: a change subscription with
 * more than one lane runs on {@link Lanes}, every other one in place on the delivery
 * thread. Each subscription reaches delivery as a {@link Recipient} and its handler as a
 * {@link ListenerRunner}, so that delivery needs none of the consumer's API types.
 */
final class SubscriptionTargets {

	private SubscriptionTargets() {
	}

	static List<Target> of(ConsumerConfig config, AckWindow window, ConsumerStates states, StopSignal stop,
			ConsumerThreads threads, @Nullable FailureLedger<HandlerFailedException> ledger,
			SubscriptionControls controls, Consumer<Throwable> onLaneFailure) {
		List<Target> targets = new ArrayList<>();
		for (Subscription subscription : config.subscriptions()) {
			AtomicBoolean interruptReported = new AtomicBoolean();
			SubscriptionControl control = controls.get(subscription.id());
			Recipient recipient = new SubscriptionRecipient(subscription);
			if (subscription.kind() == Recipient.Kind.CHANGE && subscription.concurrency() > 1) {
				List<ListenerRunner> runners = new ArrayList<>();
				for (int i = 0; i < subscription.concurrency(); i++) {
					runners.add(new ListenerRunner(subscription, config.retryPolicy(), window, states,
							config.listener(), stop, interruptReported, null, control));
				}
				long bytesPerLane = Math.max(1, config.readAheadBytes() / subscription.concurrency());
				targets.add(new LaneTarget(new Lanes(recipient, runners, bytesPerLane, window, threads,
						config.slotName(), stop, onLaneFailure)));
			}
			else {
				targets.add(new SerialTarget(recipient, new ListenerRunner(subscription, config.retryPolicy(), window,
						states, config.listener(), stop, interruptReported, ledger, control)));
			}
		}
		return targets;
	}

	/** A subscription as delivery sees it. */
	private record SubscriptionRecipient(Subscription subscription) implements Recipient {

		@Override
		public String id() {
			return this.subscription.id();
		}

		@Override
		public Kind kind() {
			return this.subscription.kind();
		}

		@Override
		public boolean accepts(Change change) {
			return this.subscription.accepts(change);
		}

		@Override
		public boolean takesSchemaChanges() {
			return this.subscription.schemaHandler() != null;
		}

	}

}
