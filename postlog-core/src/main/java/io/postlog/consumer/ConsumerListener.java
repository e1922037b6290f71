package io.postlog.consumer;

import java.time.Duration;
import java.util.List;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.SlotLostException;
import org.jspecify.annotations.Nullable;

/**
 * Observes a consumer, for metrics and logs. Called on the consumer's threads; methods
 * must be quick and must not throw, except {@link #snapshotStarted}: the consumer calls
 * its listener through a {@link GuardedConsumerListener}, which logs (by class) and
 * counts an exception and goes on. Every method does nothing by default.
 */
public interface ConsumerListener {

	/**
	 * The consumer moved to another state.
	 * @param previous the old state
	 * @param current the new state
	 * @param cause the failure behind a move to {@code RETRYING}, {@code STANDBY} or
	 * {@code FAILED}, else {@code null}
	 */
	default void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
	}

	/**
	 * A change was delivered to the change handler, which returned.
	 * @param change the change
	 * @param handlerTime how long the handler took
	 */
	default void changeDelivered(Change change, Duration handlerTime) {
	}

	/**
	 * A transaction finished delivery (every handler returned).
	 * @param transaction the transaction, without its changes unless a transaction
	 * handler is registered
	 * @param handlerTime how long its handlers took in all
	 */
	default void transactionDelivered(Transaction transaction, Duration handlerTime) {
	}

	/**
	 * A delivery failed and will be retried after {@code backOff}.
	 * @param attempt the failed attempt, 1 for the first call
	 * @param backOff the wait before the next attempt
	 * @param cause the failure
	 */
	default void retrying(int attempt, Duration backOff, Throwable cause) {
	}

	/**
	 * After a reconnect the slot's confirmed position was found past the position this
	 * consumer had acknowledged: something else advanced the slot, and the transactions
	 * in between were not delivered to this consumer. Delivery goes on from the slot's
	 * position.
	 * @param acknowledged the position this consumer had acknowledged
	 * @param confirmedFlush the slot's {@code confirmed_flush_lsn}
	 */
	default void slotAdvanced(Lsn acknowledged, Lsn confirmedFlush) {
	}

	/**
	 * The slot was found lost (invalidated by the server, or missing although it
	 * existed), at start or when reconnecting; called before the consumer acts on it.
	 * With {@link LostSlotAction#FAIL} the consumer then fails with {@code loss}
	 * ({@code start()} throws it, or the state becomes {@code FAILED}); with
	 * {@link LostSlotAction#RECREATE} it drops the slot, creates a new one and streams
	 * from there, and the changes between {@link SlotLostException#lastConfirmedLsn()}
	 * and the new slot's start are never delivered.
	 * @param loss what was found
	 * @param action what the consumer does about it
	 */
	default void slotLost(SlotLostException loss, LostSlotAction action) {
	}

	/**
	 * The acknowledged position moved.
	 * @param lsn the new acknowledged position
	 */
	default void acknowledged(Lsn lsn) {
	}

	/**
	 * With streaming on, the spill files of in-progress streamed transactions changed:
	 * after a stream block, an abort, a commit passed on, and when a session ends.
	 * @param bytes the bytes of spill files on disk now
	 * @param totalBytes the bytes written to spill files since the consumer started
	 */
	default void spilled(long bytes, long totalBytes) {
	}

	/**
	 * The initial snapshot begins; its rows, {@link io.postlog.Operation#SNAPSHOT}
	 * changes, follow. Called on the delivery thread before the first row, and delivery
	 * waits for it: unlike the other methods it may take its time, for example to clear a
	 * read model. Called for a fresh snapshot only (a new slot, or one recreated after it
	 * was lost): a snapshot interrupted by a crash or a stop resumes as a backfill
	 * ({@link #backfillStarted}, {@link Backfill#resumesSnapshot()}) where it can (see
	 * {@link ReplicationConsumer.Builder#backfills}), and only where it cannot is it
	 * taken again, a new state of the tables after which a read model built from snapshot
	 * rows starts over. An exception ends this attempt, which is retried as a failed
	 * delivery is.
	 * @param consistentPoint the snapshot's consistent point, the commit LSN of its rows
	 * @param tables the tables it reads
	 */
	default void snapshotStarted(Lsn consistentPoint, List<TableId> tables) {
	}

	/**
	 * The initial snapshot was delivered (every listener returned and acknowledged) and
	 * handed over to the slot, whose stream starts at its consistent point.
	 * @param progress what was delivered, per table
	 */
	default void snapshotCompleted(SnapshotProgress progress) {
	}

	/**
	 * A backfill begins, or resumes after a restart, before the first of its rows is
	 * read: every {@link io.postlog.Operation#SNAPSHOT} change delivered from now until
	 * {@link #backfillCompleted} (or its failure or cancellation,
	 * {@link Backfill#state()}) is one of its rows. Called on the backfill thread.
	 * @param backfill the backfill
	 */
	default void backfillStarted(Backfill backfill) {
	}

	/**
	 * A backfill completed: every listener finished every row of it.
	 * @param backfill the backfill, {@link Backfill.State#COMPLETED}
	 */
	default void backfillCompleted(Backfill backfill) {
	}

	/**
	 * A subscription started, stopped or paused alone ({@link SubscriptionControl}): by a
	 * request, or because its error handler gave up (then with the failure). Called on
	 * the thread that made the move.
	 * @param control the subscription's control
	 * @param previous the state it left
	 * @param cause the failure that stopped it, or {@code null}
	 */
	default void subscriptionStateChanged(SubscriptionControl control, SubscriptionState previous,
			@Nullable Throwable cause) {
	}

}
