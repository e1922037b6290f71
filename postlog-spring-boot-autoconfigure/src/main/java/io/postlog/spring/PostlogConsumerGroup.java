package io.postlog.spring;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.SlotLostException;
import io.postlog.consumer.Backfill;
import io.postlog.consumer.ConsumerListener;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.HandlerFailedException;
import io.postlog.consumer.PendingAcknowledgment;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.SubscriptionControl;
import io.postlog.consumer.SubscriptionState;
import io.postlog.consumer.SnapshotProgress;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEvent;

/**
 * One consumer group: the listeners that share a replication slot and publication, and
 * the {@link ReplicationConsumer} that feeds them. Reports its state, positions, last
 * failure and each listener's last error, for health, metrics and the actuator endpoint.
 * Created and started by the {@link PostlogListenerRegistry}. Thread-safe.
 */
public final class PostlogConsumerGroup {

	/** The name of the default group, whose slot is {@code postlog.slot.name}. */
	public static final String DEFAULT = "";

	private final String name;

	private final PostlogSlotMonitor monitor;

	private final List<ListenerEndpoint> endpoints;

	private final Consumer<ApplicationEvent> publisher;

	private final Map<String, ListenerError> errors = new ConcurrentHashMap<>();

	/** Rows read again for listeners with {@code toast = RESELECT}. */
	private final AtomicLong toastReselects = new AtomicLong();

	private volatile @Nullable ReplicationConsumer consumer;

	private volatile @Nullable Instant lastCommitTime;

	private volatile @Nullable Throwable lastFailure;

	/**
	 * Returns the counter of rows read again for listeners with {@code toast = RESELECT}
	 * ({@code postlog.toast.reselects}).
	 * @return the counter
	 */
	public AtomicLong toastReselects() {
		return this.toastReselects;
	}

	PostlogConsumerGroup(String name, PostlogSlotMonitor monitor, List<ListenerEndpoint> endpoints,
			Consumer<ApplicationEvent> publisher) {
		this.name = name;
		this.monitor = monitor;
		this.endpoints = List.copyOf(endpoints);
		this.publisher = publisher;
	}

	/**
	 * Returns the group's name.
	 * @return the name, {@link #DEFAULT} for the default group
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Returns the name health, the endpoint and meters show: {@code default} for the
	 * default group.
	 * @return the name
	 */
	public String displayName() {
		return this.name.isEmpty() ? "default" : this.name;
	}

	/**
	 * Returns the group's replication slot.
	 * @return the slot name
	 */
	public String slotName() {
		return this.monitor.slotName();
	}

	/**
	 * Returns the group's publication.
	 * @return the publication name
	 */
	public String publicationName() {
		return this.monitor.publicationName();
	}

	/**
	 * Returns the monitor of the group's slot and publication.
	 * @return the monitor
	 */
	public PostlogSlotMonitor monitor() {
		return this.monitor;
	}

	/**
	 * Returns the consumer's state.
	 * @return the state, or {@code null} before the consumer was built
	 */
	public @Nullable ConsumerState state() {
		ReplicationConsumer consumer = this.consumer;
		return (consumer != null) ? consumer.state() : null;
	}

	/**
	 * Returns the position acknowledged to the server.
	 * @return the position, or {@code null} before the consumer was built
	 */
	public @Nullable Lsn ackedLsn() {
		ReplicationConsumer consumer = this.consumer;
		return (consumer != null) ? consumer.ackedLsn() : null;
	}

	/**
	 * Returns the commit time of the last transaction delivered.
	 * @return the time, or {@code null} before the first
	 */
	public @Nullable Instant lastCommitTime() {
		return this.lastCommitTime;
	}

	/**
	 * Returns the failure behind the latest move to {@code RETRYING}, {@code STANDBY} or
	 * {@code FAILED}.
	 * @return the failure, or {@code null}
	 */
	public @Nullable Throwable lastFailure() {
		return this.lastFailure;
	}

	/**
	 * Returns the progress of the group's initial snapshot, while it runs or once handed
	 * over.
	 * @return the progress, or {@code null} when this consumer took none
	 */
	public @Nullable SnapshotProgress snapshot() {
		ReplicationConsumer consumer = this.consumer;
		return (consumer != null) ? consumer.snapshot() : null;
	}

	/**
	 * Starts a backfill of some of the group's tables while it streams.
	 * @param tables the tables
	 * @return the backfill
	 * @throws IllegalStateException if the group's consumer is not running, or has no
	 * backfills (a jdbc checkpoint store)
	 * @throws io.postlog.snapshot.KeylessTableException if a table has no key
	 */
	public Backfill backfill(List<TableId> tables) {
		ReplicationConsumer consumer = this.consumer;
		if (consumer == null) {
			throw new IllegalStateException("Consumer group " + displayName() + " is not running");
		}
		return consumer.backfill(tables);
	}

	/**
	 * Returns the group's backfills, running and finished, and those it resumed.
	 * @return the backfills
	 */
	public List<Backfill> backfills() {
		ReplicationConsumer consumer = this.consumer;
		return (consumer != null) ? consumer.backfills() : List.of();
	}

	/**
	 * Describes the group's listeners, each with its state, its position while it is not
	 * running, its oldest outstanding acknowledgement and its last error.
	 * @return one entry per listener method, in delivery order
	 */
	public List<ListenerInfo> listeners() {
		List<ListenerInfo> listeners = new ArrayList<>();
		ReplicationConsumer consumer = this.consumer;
		for (ListenerEndpoint endpoint : this.endpoints) {
			SubscriptionControl control = (consumer != null) ? consumer.subscription(endpoint.id()) : null;
			Lsn position = (control != null) ? control.position() : null;
			listeners.add(new ListenerInfo(endpoint.id(), endpoint.method(), endpoint.shape().name(),
					endpoint.tableNames(), endpoint.operations().stream().sorted().toList(), endpoint.prefix(),
					endpoint.concurrency(), (control != null) ? control.state().name() : "NOT_STARTED",
					(control != null && control.cause() != null), (position != null) ? position.toString() : null,
					Unacknowledged.of((control != null) ? control.oldestUnacknowledged() : null),
					Unacknowledged.of((control != null) ? control.stalled() : null), this.errors.get(endpoint.id())));
		}
		return listeners;
	}

	/**
	 * Returns the control of one of the group's listeners.
	 * @param id the listener's id
	 * @return the control, or {@code null} if the group has no such listener or its
	 * consumer was not built
	 */
	public @Nullable SubscriptionControl listener(String id) {
		ReplicationConsumer consumer = this.consumer;
		if (consumer == null) {
			return null;
		}
		for (ListenerEndpoint endpoint : this.endpoints) {
			if (endpoint.id().equals(id)) {
				return consumer.subscription(id);
			}
		}
		return null;
	}

	/**
	 * Returns the ids of the group's listeners that their error handler stopped.
	 * @return the ids, in delivery order
	 */
	public List<String> failedListeners() {
		ReplicationConsumer consumer = this.consumer;
		if (consumer == null) {
			return List.of();
		}
		List<String> failed = new ArrayList<>();
		for (SubscriptionControl control : consumer.subscriptions()) {
			if (control.state() == SubscriptionState.STOPPED && control.cause() != null) {
				failed.add(control.id());
			}
		}
		return failed;
	}

	List<ListenerEndpoint> endpoints() {
		return this.endpoints;
	}

	void started(ReplicationConsumer consumer) {
		this.consumer = consumer;
	}

	@Nullable ReplicationConsumer consumer() {
		return this.consumer;
	}

	void stop() {
		ReplicationConsumer consumer = this.consumer;
		if (consumer != null) {
			consumer.stop();
		}
	}

	void delivered(Instant commitTime) {
		this.lastCommitTime = commitTime;
	}

	void failed(Throwable cause) {
		this.lastFailure = cause;
	}

	void listenerFailed(HandlerFailedException failure, String outcome) {
		this.errors.put(failure.subscriptionId(), ListenerError.of(failure, outcome));
	}

	void publish(ApplicationEvent event) {
		this.publisher.accept(event);
	}

	/**
	 * Observes the group's consumer: keeps its positions, failures and listener errors,
	 * and publishes a {@link PostlogSlotLostEvent} when its slot is found lost.
	 * @return the observer
	 */
	ConsumerListener recorder() {
		return new ConsumerListener() {

			@Override
			public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
				if (cause != null) {
					failed(cause);
				}
				else if (current == ConsumerState.RUNNING || current == ConsumerState.SNAPSHOT) {
					// Delivering again (a retried listener succeeded or was skipped, or a
					// reconnect went through): the failure behind the last state is over.
					PostlogConsumerGroup.this.lastFailure = null;
				}
			}

			@Override
			public void transactionDelivered(io.postlog.Transaction transaction, java.time.Duration handlerTime) {
				delivered(transaction.commitTime());
			}

			@Override
			public void retrying(int attempt, java.time.Duration backOff, Throwable cause) {
				// The latest attempt, not the first that moved the state to RETRYING.
				failed(cause);
				if (cause instanceof HandlerFailedException failure) {
					listenerFailed(failure, "RETRYING");
				}
			}

			@Override
			public void snapshotStarted(Lsn consistentPoint, List<TableId> tables) {
				publish(new PostlogSnapshotStartedEvent(PostlogConsumerGroup.this, PostlogConsumerGroup.this.name,
						slotName(), consistentPoint, tables));
			}

			@Override
			public void backfillStarted(Backfill backfill) {
				publish(new PostlogBackfillStartedEvent(PostlogConsumerGroup.this, PostlogConsumerGroup.this.name,
						backfill));
			}

			@Override
			public void backfillCompleted(Backfill backfill) {
				publish(new PostlogBackfillCompletedEvent(PostlogConsumerGroup.this, PostlogConsumerGroup.this.name,
						backfill));
			}

			@Override
			public void slotLost(SlotLostException loss, LostSlotAction action) {
				publish(new PostlogSlotLostEvent(PostlogConsumerGroup.this, loss, action));
			}

		};
	}

	@Override
	public String toString() {
		return "PostlogConsumerGroup[" + displayName() + ", slot " + slotName() + "]";
	}

	/**
	 * A registered listener method, as the actuator endpoint shows it.
	 *
	 * @param id the listener's id
	 * @param method the method
	 * @param shape what the method takes
	 * @param tables the tables it filters on, empty for all
	 * @param operations the operations it receives
	 * @param prefix the message prefix of a message listener, else {@code null}
	 * @param concurrency the number of lanes
	 * @param state {@code RUNNING}, {@code PAUSED} or {@code STOPPED}
	 * ({@link SubscriptionState}), {@code NOT_STARTED} before its group's consumer was
	 * built
	 * @param failed whether its error handler stopped it (its last error tells why)
	 * @param position where it resumes while it is not running: its group's slot is
	 * confirmed no further; {@code null} while running
	 * @param oldestUnacknowledged its oldest acknowledgement not yet given, or
	 * {@code null}
	 * @param stalled that acknowledgement when it is outstanding longer than
	 * {@code postlog.delivery.unacknowledged-warning}, else {@code null}
	 * @param lastError its latest failed attempt, or {@code null}
	 */
	public record ListenerInfo(String id, String method, String shape, List<String> tables,
			List<io.postlog.Operation> operations, @Nullable String prefix, int concurrency, String state,
			boolean failed, @Nullable String position, @Nullable Unacknowledged oldestUnacknowledged,
			@Nullable Unacknowledged stalled, @Nullable ListenerError lastError) {

		/**
		 * Returns this listener with its last error's message left out.
		 * @return the same listener, its {@code lastError} without {@code message}
		 */
		public ListenerInfo withoutErrorMessage() {
			ListenerError error = this.lastError;
			return (error != null) ? new ListenerInfo(this.id, this.method, this.shape, this.tables, this.operations,
					this.prefix, this.concurrency, this.state, this.failed, this.position, this.oldestUnacknowledged,
					this.stalled, error.withoutMessage()) : this;
		}

	}

	/**
	 * An acknowledgement a listener was handed and has not given yet, as the actuator
	 * endpoint and health show it.
	 *
	 * @param commitLsn the commit LSN of the transaction it is for
	 * @param changeId the change id, or {@code null} for a transaction listener
	 * @param since when it was handed out
	 */
	public record Unacknowledged(String commitLsn, @Nullable String changeId, Instant since) {

		static @Nullable Unacknowledged of(@Nullable PendingAcknowledgment pending) {
			return (pending != null)
					? new Unacknowledged(pending.commitLsn().toString(), pending.changeId(), pending.since()) : null;
		}

	}

}
