package io.postlog.consumer;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.SlotLostException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells several observers of a consumer (metrics, logs, the application's own), in order,
 * and keeps one that throws from stopping delivery or the observers after it: the one
 * place observer failures are guarded, so the consumer calls it without a {@code try}. A
 * failure is counted and logged by the observer's and the exception's class only (an
 * observer's message can quote a row value): at WARN the first time an observer fails in
 * a callback, at DEBUG after that. {@link #snapshotStarted} is the exception the
 * {@link ConsumerListener} contract makes: a failure there propagates and ends the
 * snapshot attempt. Thread-safe; the observers are called on the consumer's threads.
 */
public final class GuardedConsumerListener implements ConsumerListener {

	private static final Logger logger = LoggerFactory.getLogger(GuardedConsumerListener.class);

	private final List<ConsumerListener> observers;

	private final Set<String> warned = ConcurrentHashMap.newKeySet();

	private final AtomicLong failures = new AtomicLong();

	private GuardedConsumerListener(List<ConsumerListener> observers) {
		this.observers = List.copyOf(observers);
	}

	/**
	 * Guards observers; a guard in the list is kept as one observer.
	 * @param observers the observers, in the order they are told
	 * @return the guard
	 */
	public static GuardedConsumerListener of(List<? extends ConsumerListener> observers) {
		return new GuardedConsumerListener(List.copyOf(observers));
	}

	/**
	 * Guards one observer, or returns it if it is a guard already.
	 * @param observer the observer
	 * @return the guard
	 */
	public static GuardedConsumerListener of(ConsumerListener observer) {
		return (observer instanceof GuardedConsumerListener guarded) ? guarded : of(List.of(observer));
	}

	/**
	 * Returns how many times an observer threw since this guard was made.
	 * @return the count
	 */
	public long failures() {
		return this.failures.get();
	}

	@Override
	public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
		tell("stateChanged", (observer) -> observer.stateChanged(previous, current, cause));
	}

	@Override
	public void changeDelivered(Change change, Duration handlerTime) {
		tell("changeDelivered", (observer) -> observer.changeDelivered(change, handlerTime));
	}

	@Override
	public void transactionDelivered(Transaction transaction, Duration handlerTime) {
		tell("transactionDelivered", (observer) -> observer.transactionDelivered(transaction, handlerTime));
	}

	@Override
	public void retrying(int attempt, Duration backOff, Throwable cause) {
		tell("retrying", (observer) -> observer.retrying(attempt, backOff, cause));
	}

	@Override
	public void slotAdvanced(Lsn acknowledged, Lsn confirmedFlush) {
		tell("slotAdvanced", (observer) -> observer.slotAdvanced(acknowledged, confirmedFlush));
	}

	@Override
	public void slotLost(SlotLostException loss, LostSlotAction action) {
		tell("slotLost", (observer) -> observer.slotLost(loss, action));
	}

	@Override
	public void acknowledged(Lsn lsn) {
		tell("acknowledged", (observer) -> observer.acknowledged(lsn));
	}

	@Override
	public void spilled(long bytes, long totalBytes) {
		tell("spilled", (observer) -> observer.spilled(bytes, totalBytes));
	}

	@Override
	public void snapshotStarted(Lsn consistentPoint, List<TableId> tables) {
		for (ConsumerListener observer : this.observers) {
			observer.snapshotStarted(consistentPoint, tables);
		}
	}

	@Override
	public void snapshotCompleted(SnapshotProgress progress) {
		tell("snapshotCompleted", (observer) -> observer.snapshotCompleted(progress));
	}

	@Override
	public void backfillStarted(Backfill backfill) {
		tell("backfillStarted", (observer) -> observer.backfillStarted(backfill));
	}

	@Override
	public void backfillCompleted(Backfill backfill) {
		tell("backfillCompleted", (observer) -> observer.backfillCompleted(backfill));
	}

	@Override
	public void subscriptionStateChanged(SubscriptionControl control, SubscriptionState previous,
			@Nullable Throwable cause) {
		tell("subscriptionStateChanged", (observer) -> observer.subscriptionStateChanged(control, previous, cause));
	}

	private void tell(String callback, Consumer<ConsumerListener> call) {
		for (int i = 0; i < this.observers.size(); i++) {
			ConsumerListener observer = this.observers.get(i);
			try {
				call.accept(observer);
			}
			catch (RuntimeException ex) {
				failed(i, observer, callback, ex);
			}
		}
	}

	private void failed(int index, ConsumerListener observer, String callback, RuntimeException ex) {
		this.failures.incrementAndGet();
		String name = observer.getClass().getName();
		if (this.warned.add(index + "/" + callback)) {
			logger.warn("ConsumerListener {} failed in {} with {}; it goes on without it (further failures of it "
					+ "in {} are logged at DEBUG)", name, callback, ex.getClass().getName(), callback);
		}
		else {
			logger.debug("ConsumerListener {} failed in {} with {}", name, callback, ex.getClass().getName());
		}
	}

}
