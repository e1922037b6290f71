package io.postlog.kafka;

import java.time.Duration;
import java.util.List;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.SlotLostException;
import io.postlog.consumer.ConsumerListener;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.GuardedConsumerListener;
import io.postlog.consumer.SnapshotProgress;
import io.postlog.consumer.SubscriptionControl;
import io.postlog.consumer.SubscriptionState;
import org.jspecify.annotations.Nullable;

/**
 * Passes every one of the consumer's events on to the relay's observers (guarded: one
 * that throws is logged and counted, and keeps neither delivery nor the others from going
 * on), and tells the store when the consumer waits in standby and when a session ended.
 */
final class RelayListeners implements ConsumerListener {

	private final KafkaCheckpointStore store;

	private final GuardedConsumerListener observers;

	private volatile @Nullable Throwable lastFailure;

	RelayListeners(KafkaCheckpointStore store, List<ConsumerListener> listeners) {
		this.store = store;
		this.observers = GuardedConsumerListener.of(listeners);
	}

	/**
	 * Returns the latest failure: what made the relay retry or fail.
	 * @return the failure, or {@code null} when there was none
	 */
	@Nullable Throwable lastFailure() {
		return this.lastFailure;
	}

	@Override
	public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
		if (current == ConsumerState.STANDBY) {
			this.store.standby();
		}
		if (current == ConsumerState.RETRYING || current == ConsumerState.STANDBY || current == ConsumerState.FAILED) {
			// The session is over: the next one is RUNNING only once its load is
			// done.
			this.store.notReady();
		}
		if (cause != null) {
			this.lastFailure = cause;
		}
		this.observers.stateChanged(previous, current, cause);
	}

	@Override
	public void changeDelivered(Change change, Duration handlerTime) {
		this.observers.changeDelivered(change, handlerTime);
	}

	@Override
	public void transactionDelivered(Transaction transaction, Duration handlerTime) {
		this.observers.transactionDelivered(transaction, handlerTime);
	}

	@Override
	public void retrying(int attempt, Duration backOff, Throwable cause) {
		this.lastFailure = cause;
		this.observers.retrying(attempt, backOff, cause);
	}

	@Override
	public void slotAdvanced(Lsn acknowledged, Lsn confirmedFlush) {
		this.observers.slotAdvanced(acknowledged, confirmedFlush);
	}

	@Override
	public void slotLost(SlotLostException loss, LostSlotAction action) {
		this.observers.slotLost(loss, action);
	}

	@Override
	public void acknowledged(Lsn lsn) {
		this.observers.acknowledged(lsn);
	}

	@Override
	public void spilled(long bytes, long totalBytes) {
		this.observers.spilled(bytes, totalBytes);
	}

	@Override
	public void snapshotStarted(Lsn consistentPoint, List<TableId> tables) {
		this.observers.snapshotStarted(consistentPoint, tables);
	}

	@Override
	public void snapshotCompleted(SnapshotProgress progress) {
		this.observers.snapshotCompleted(progress);
	}

	@Override
	public void subscriptionStateChanged(SubscriptionControl control, SubscriptionState previous,
			@Nullable Throwable cause) {
		this.observers.subscriptionStateChanged(control, previous, cause);
	}

}
