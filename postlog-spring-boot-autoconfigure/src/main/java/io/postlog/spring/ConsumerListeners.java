package io.postlog.spring;

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
import io.postlog.consumer.SnapshotProgress;
import io.postlog.consumer.SubscriptionControl;
import io.postlog.consumer.SubscriptionState;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells several listeners of a consumer, in order; one that throws is logged and does not
 * keep the others from hearing, except at {@link #snapshotStarted}, where a failure ends
 * the snapshot attempt as the consumer's contract says. Immutable and thread-safe.
 */
final class ConsumerListeners implements ConsumerListener {

	private static final Logger logger = LoggerFactory.getLogger(ConsumerListeners.class);

	private final List<ConsumerListener> listeners;

	ConsumerListeners(List<ConsumerListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	@Override
	public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
		for (ConsumerListener listener : this.listeners) {
			safely(() -> listener.stateChanged(previous, current, cause));
		}
	}

	@Override
	public void changeDelivered(Change change, Duration handlerTime) {
		for (ConsumerListener listener : this.listeners) {
			safely(() -> listener.changeDelivered(change, handlerTime));
		}
	}

	@Override
	public void transactionDelivered(Transaction transaction, Duration handlerTime) {
		for (ConsumerListener listener : this.listeners) {
			safely(() -> listener.transactionDelivered(transaction, handlerTime));
		}
	}

	@Override
	public void retrying(int attempt, Duration backOff, Throwable cause) {
		for (ConsumerListener listener : this.listeners) {
			safely(() -> listener.retrying(attempt, backOff, cause));
		}
	}

	@Override
	public void slotAdvanced(Lsn acknowledged, Lsn confirmedFlush) {
		for (ConsumerListener listener : this.listeners) {
			safely(() -> listener.slotAdvanced(acknowledged, confirmedFlush));
		}
	}

	@Override
	public void slotLost(SlotLostException loss, LostSlotAction action) {
		for (ConsumerListener listener : this.listeners) {
			safely(() -> listener.slotLost(loss, action));
		}
	}

	@Override
	public void acknowledged(Lsn lsn) {
		for (ConsumerListener listener : this.listeners) {
			safely(() -> listener.acknowledged(lsn));
		}
	}

	@Override
	public void spilled(long bytes, long totalBytes) {
		for (ConsumerListener listener : this.listeners) {
			safely(() -> listener.spilled(bytes, totalBytes));
		}
	}

	@Override
	public void snapshotStarted(Lsn consistentPoint, List<TableId> tables) {
		for (ConsumerListener listener : this.listeners) {
			listener.snapshotStarted(consistentPoint, tables);
		}
	}

	@Override
	public void snapshotCompleted(SnapshotProgress progress) {
		for (ConsumerListener listener : this.listeners) {
			safely(() -> listener.snapshotCompleted(progress));
		}
	}

	@Override
	public void subscriptionStateChanged(SubscriptionControl control, SubscriptionState previous,
			@Nullable Throwable cause) {
		for (ConsumerListener listener : this.listeners) {
			safely(() -> listener.subscriptionStateChanged(control, previous, cause));
		}
	}

	private static void safely(Runnable call) {
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			logger.warn("A postlog ConsumerListener failed", ex);
		}
	}

}
