package io.postlog.consumer;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Transaction;
import io.postlog.consumer.checkpoint.ChunkMark;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.CheckpointSink;
import io.postlog.consumer.delivery.ConsumerThreads;
import io.postlog.consumer.delivery.DispatchHost;
import io.postlog.consumer.delivery.Dispatcher;
import io.postlog.consumer.delivery.Event;
import io.postlog.consumer.delivery.FailureLedger;
import io.postlog.consumer.delivery.Heartbeats;
import io.postlog.consumer.delivery.StopSignal;
import io.postlog.consumer.delivery.Target;
import org.jspecify.annotations.Nullable;

/**
 * The consumer as its {@link Dispatcher}'s {@link DispatchHost}: its configuration's
 * limits, its column masks, its subscriptions' controls and its observer; and the maker
 * of the dispatcher, with the subscriptions' targets ({@link SubscriptionTargets}) and,
 * for a transactional {@link CheckpointStore}, the store as a {@link CheckpointSink} and
 * the {@link FailureLedger} its runners count failures in.
 */
final class ConsumerDispatch implements DispatchHost {

	private final ConsumerConfig config;

	private final SubscriptionControls controls;

	/** Masks applied before any target sees a change; {@code null} when none is set. */
	private final @Nullable ColumnMasks masks;

	private ConsumerDispatch(ConsumerConfig config, SubscriptionControls controls) {
		this.config = config;
		this.controls = controls;
		this.masks = config.masks();
	}

	/**
	 * Makes the dispatcher of a consumer.
	 * @param onLaneFailure told when a lane's handler failed the consumer
	 * @return the dispatcher
	 */
	static Dispatcher dispatcher(ConsumerConfig config, AckWindow window, ConsumerStates states, StopSignal stop,
			ConsumerThreads threads, Heartbeats heartbeats, SubscriptionControls controls,
			Consumer<Throwable> onLaneFailure) {
		CheckpointStore store = config.checkpointStore();
		FailureLedger<HandlerFailedException> ledger = store.transactional() ? new FailureLedger<>() : null;
		List<Target> targets = SubscriptionTargets.of(config, window, states, stop, threads, ledger, controls,
				onLaneFailure);
		return new Dispatcher(new ConsumerDispatch(config, controls), window, stop, heartbeats, targets,
				(ledger != null) ? new StoreSink(store) : null, ledger);
	}

	@Override
	public String slotName() {
		return this.config.slotName();
	}

	@Override
	public int maxUnacknowledged() {
		return this.config.maxUnacknowledged();
	}

	@Override
	public int maxTransactionChanges() {
		return this.config.maxTransactionChanges();
	}

	@Override
	public int checkpointBatch() {
		return this.config.checkpointBatch();
	}

	@Override
	public Duration checkpointBatchDelay() {
		return this.config.checkpointBatchDelay();
	}

	@Override
	public Event.ChangeArrived mask(Event.ChangeArrived arrived) {
		return ColumnMasks.apply(this.masks, arrived);
	}

	@Override
	public void atBoundary(Lsn position, AckWindow window) {
		this.controls.atBoundary(position, window);
	}

	@Override
	public void changeDelivered(Change change, Duration handlerTime) {
		this.config.listener().changeDelivered(change, handlerTime);
	}

	@Override
	public void transactionDelivered(Transaction transaction, Duration handlerTime) {
		this.config.listener().transactionDelivered(transaction, handlerTime);
	}

	@Override
	public String describe(Throwable failure) {
		return Failures.describe(failure);
	}

	/** A transactional checkpoint store as the sink transaction sees it. */
	private record StoreSink(CheckpointStore store) implements CheckpointSink {

		@Override
		public Lsn load() {
			return this.store.load();
		}

		@Override
		public void begin() {
			this.store.begin();
		}

		@Override
		public void commit(Lsn commitLsn) {
			this.store.commit(commitLsn);
		}

		@Override
		public void rollback() {
			this.store.rollback();
		}

		@Override
		public void recordChunk(ChunkMark mark) {
			this.store.recordChunk(mark);
		}

	}

}
