package io.postlog.spring;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.SlotLostException;
import io.postlog.consumer.ConsumerListener;
import io.postlog.consumer.ConsumerState;
import io.postlog.PostlogException;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.Subscription;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;

/**
 * Owns the one {@link ReplicationConsumer} that feeds every registered listener, in
 * registration order, on its delivery thread. Starts late (after the web server) and
 * stops early, acknowledging what was delivered. While it starts, the slot and
 * publication are set up on the calling thread, so a set-up fault fails start-up.
 * Readiness is {@code REFUSING_TRAFFIC} from start until the consumer first runs (or
 * waits in standby behind another replica), then {@code ACCEPTING_TRAFFIC}; when Spring
 * Boot declares the application ready before that, the registry answers with
 * {@code REFUSING_TRAFFIC} again. A slot found lost, at start or on a reconnect, is
 * published as a {@link PostlogSlotLostEvent} before the consumer acts on it.
 * Thread-safe.
 */
public final class PostlogListenerRegistry implements SmartLifecycle, ApplicationEventPublisherAware,
		ApplicationListener<AvailabilityChangeEvent<ReadinessState>> {

	/** The lifecycle phase: late, so listeners start after everything else. */
	public static final int PHASE = Integer.MAX_VALUE - 100;

	private static final Logger logger = LoggerFactory.getLogger(PostlogListenerRegistry.class);

	private final ConsumerSetup setup;

	private final List<ConsumerListener> observers;

	private final List<ListenerEndpoint> endpoints = new ArrayList<>();

	private @Nullable ApplicationEventPublisher publisher;

	private volatile @Nullable ReplicationConsumer consumer;

	private volatile boolean running;

	/** Orders readiness decisions of the consumer's thread and the application's. */
	private final Object readinessLock = new Object();

	private volatile boolean ready;

	private volatile @Nullable Instant lastCommitTime;

	private volatile @Nullable Throwable lastFailure;

	/**
	 * Creates a registry.
	 * @param setup prepares the slot and publication and configures the consumer
	 * @param observers further listeners of the consumer, for example metrics
	 */
	public PostlogListenerRegistry(ConsumerSetup setup, List<ConsumerListener> observers) {
		this.setup = setup;
		this.observers = List.copyOf(observers);
	}

	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	synchronized void register(Collection<ListenerEndpoint> endpoints) {
		if (this.running) {
			logger.warn("Ignoring {} postlog listener(s) found after start", endpoints.size());
			return;
		}
		this.endpoints.addAll(endpoints);
	}

	/**
	 * Returns the tables the change listeners name, empty if any of them takes every
	 * published table.
	 * @return the tables
	 */
	public synchronized List<TableId> listenerTables() {
		Set<TableId> tables = new LinkedHashSet<>();
		for (ListenerEndpoint endpoint : this.endpoints) {
			if (endpoint.shape() != ListenerEndpoint.Shape.MESSAGE) {
				if (endpoint.tables().isEmpty()) {
					return List.of();
				}
				tables.addAll(endpoint.tables());
			}
		}
		return List.copyOf(tables);
	}

	/**
	 * Describes the registered listeners.
	 * @return one entry per listener method, in delivery order
	 */
	public synchronized List<ListenerInfo> listeners() {
		return this.endpoints.stream()
			.map((endpoint) -> new ListenerInfo(endpoint.id(), endpoint.method(), endpoint.shape().name(),
					endpoint.tables().stream().map(TableId::toString).sorted().toList(),
					endpoint.operations().stream().sorted().toList(), endpoint.prefix()))
			.toList();
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		if (this.endpoints.isEmpty()) {
			logger.info("No @PgChangeListener or @PgMessageListener methods: postlog does not start a consumer");
			this.running = true;
			return;
		}
		publishReadiness(ReadinessState.REFUSING_TRAFFIC);
		ReplicationConsumer.Builder builder = this.setup.prepare(listenerTables());
		Set<String> ids = new LinkedHashSet<>();
		for (ListenerEndpoint endpoint : this.endpoints) {
			if (!ids.add(endpoint.id())) {
				throw new PostlogException("Two postlog listeners have the id '" + endpoint.id()
						+ "'; give them distinct ids with @PgChangeListener(id = ...)");
			}
			builder.subscribe(subscription(endpoint));
		}
		builder.listener(new Observer());
		ReplicationConsumer consumer = builder.build();
		this.consumer = consumer;
		consumer.start();
		this.running = true;
		logger.info("postlog started with {} listener(s)", this.endpoints.size());
	}

	private static Subscription subscription(ListenerEndpoint endpoint) {
		if (endpoint.shape() == ListenerEndpoint.Shape.MESSAGE) {
			return Subscription.onMessage(endpoint.id(), endpoint::onMessage);
		}
		if (endpoint.shape().perTransaction()) {
			return Subscription.onTransaction(endpoint.id(), endpoint::onTransaction);
		}
		return Subscription.onChange(endpoint.id(), endpoint::onChange);
	}

	@Override
	public void stop() {
		ReplicationConsumer consumer;
		synchronized (this) {
			consumer = this.consumer;
			this.consumer = null;
			this.running = false;
		}
		if (consumer != null) {
			consumer.stop();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * Returns the consumer's state.
	 * @return the state, or {@code null} when no consumer runs (not started, or no
	 * listeners)
	 */
	public @Nullable ConsumerState state() {
		ReplicationConsumer consumer = this.consumer;
		return (consumer != null) ? consumer.state() : null;
	}

	/**
	 * Returns the position acknowledged to the server.
	 * @return the position, or {@code null} when no consumer runs
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
	 * Keeps readiness refusing while the consumer has not streamed yet: Spring Boot
	 * publishes {@code ACCEPTING_TRAFFIC} once the application has started, which would
	 * otherwise overwrite the registry's {@code REFUSING_TRAFFIC} when the consumer is
	 * slow to connect.
	 * @param event a readiness change
	 */
	@Override
	public void onApplicationEvent(AvailabilityChangeEvent<ReadinessState> event) {
		if (event.getState() != ReadinessState.ACCEPTING_TRAFFIC || event.getSource() == this) {
			return;
		}
		synchronized (this.readinessLock) {
			if (!this.ready && this.consumer != null) {
				logger.info("postlog is not streaming yet: readiness stays {}", ReadinessState.REFUSING_TRAFFIC);
				publishReadiness(ReadinessState.REFUSING_TRAFFIC);
			}
		}
	}

	private void publishReadiness(ReadinessState state) {
		ApplicationEventPublisher publisher = this.publisher;
		if (publisher != null) {
			AvailabilityChangeEvent.publish(publisher, this, state);
		}
	}

	/**
	 * Prepares the slot and publication and returns a consumer builder configured with
	 * everything but its handlers and listener.
	 */
	@FunctionalInterface
	public interface ConsumerSetup {

		/**
		 * Sets up the slot and publication for the listeners' tables; runs while the
		 * application starts, on its thread.
		 * @param listenerTables the tables the listeners name, empty for all published
		 * @return the configured builder
		 * @throws io.postlog.PostlogException to fail start-up
		 */
		ReplicationConsumer.Builder prepare(List<TableId> listenerTables);

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
	 */
	public record ListenerInfo(String id, String method, String shape, List<String> tables, List<Operation> operations,
			@Nullable String prefix) {
	}

	private final class Observer implements ConsumerListener {

		@Override
		public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
			if (cause != null) {
				PostlogListenerRegistry.this.lastFailure = cause;
			}
			if (current == ConsumerState.RUNNING || current == ConsumerState.STANDBY) {
				synchronized (PostlogListenerRegistry.this.readinessLock) {
					if (!PostlogListenerRegistry.this.ready) {
						PostlogListenerRegistry.this.ready = true;
						publishReadiness(ReadinessState.ACCEPTING_TRAFFIC);
					}
				}
			}
			for (ConsumerListener observer : PostlogListenerRegistry.this.observers) {
				safely(() -> observer.stateChanged(previous, current, cause));
			}
		}

		@Override
		public void changeDelivered(Change change, Duration handlerTime) {
			for (ConsumerListener observer : PostlogListenerRegistry.this.observers) {
				safely(() -> observer.changeDelivered(change, handlerTime));
			}
		}

		@Override
		public void transactionDelivered(Transaction transaction, Duration handlerTime) {
			PostlogListenerRegistry.this.lastCommitTime = transaction.commitTime();
			for (ConsumerListener observer : PostlogListenerRegistry.this.observers) {
				safely(() -> observer.transactionDelivered(transaction, handlerTime));
			}
		}

		@Override
		public void retrying(int attempt, Duration backOff, Throwable cause) {
			for (ConsumerListener observer : PostlogListenerRegistry.this.observers) {
				safely(() -> observer.retrying(attempt, backOff, cause));
			}
		}

		@Override
		public void slotAdvanced(Lsn acknowledged, Lsn confirmedFlush) {
			for (ConsumerListener observer : PostlogListenerRegistry.this.observers) {
				safely(() -> observer.slotAdvanced(acknowledged, confirmedFlush));
			}
		}

		@Override
		public void slotLost(SlotLostException loss, LostSlotAction action) {
			ApplicationEventPublisher publisher = PostlogListenerRegistry.this.publisher;
			if (publisher != null) {
				safely(() -> publisher
					.publishEvent(new PostlogSlotLostEvent(PostlogListenerRegistry.this, loss, action)));
			}
			for (ConsumerListener observer : PostlogListenerRegistry.this.observers) {
				safely(() -> observer.slotLost(loss, action));
			}
		}

		@Override
		public void acknowledged(Lsn lsn) {
			for (ConsumerListener observer : PostlogListenerRegistry.this.observers) {
				safely(() -> observer.acknowledged(lsn));
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

}
