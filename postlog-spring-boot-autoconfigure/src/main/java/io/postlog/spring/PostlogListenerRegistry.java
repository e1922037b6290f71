package io.postlog.spring;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.postlog.TableId;
import io.postlog.admin.PublicationMode;
import io.postlog.decoder.LogicalDecoder;
import io.postlog.consumer.ColumnMasks;
import io.postlog.consumer.ConsumerListener;
import io.postlog.consumer.GuardedConsumerListener;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.Subscription;
import io.postlog.consumer.SubscriptionControl;
import io.postlog.consumer.SubscriptionState;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;

/**
 * Keeps the registered listener endpoints and runs one {@link PostlogConsumerGroup} (one
 * replication consumer, slot and publication) per group they name. Starts late (after the
 * web server) and stops early, acknowledging what was delivered. While it starts, each
 * group's tables are checked and its slot and publication set up on the calling thread,
 * so a fault fails start-up. Each listener can be started, stopped, paused and resumed
 * alone by its id, as Spring for Apache Kafka's registry does for its containers; a
 * stopped or paused listener holds its group's slot at its position while the group's
 * other listeners go on.
 * <p>
 * Readiness ({@link Readiness}, {@code postlog.health.readiness}) is
 * {@code REFUSING_TRAFFIC} from start until every group first runs (or waits in standby
 * behind another replica), then {@code ACCEPTING_TRAFFIC}; when Spring Boot declares the
 * application ready before that, the registry answers with {@code REFUSING_TRAFFIC}
 * again. With {@link Readiness#DELIVERING} it also refuses traffic while a group is not
 * delivering or a listener is stopped by its error handler. Liveness is never touched: a
 * restart does not mend a listener's bug. Thread-safe.
 */
public final class PostlogListenerRegistry implements SmartLifecycle, ApplicationEventPublisherAware,
		ApplicationListener<AvailabilityChangeEvent<ReadinessState>> {

	/** The lifecycle phase: late, so listeners start after everything else. */
	public static final int PHASE = Integer.MAX_VALUE - 100;

	private static final Logger logger = LoggerFactory.getLogger(PostlogListenerRegistry.class);

	private final ConsumerSetup setup;

	private final List<ConsumerListener> observers;

	private final List<GroupObserver> groupObservers;

	private final PgListenerErrorHandler defaultErrorHandler;

	private final List<ListenerEndpoint> endpoints = new ArrayList<>();

	private volatile @Nullable PostlogListenerObservations observations;

	private volatile boolean tracePropagation;

	private volatile List<PostlogConsumerGroup> groups = List.of();

	private @Nullable ApplicationEventPublisher publisher;

	private volatile boolean running;

	private final RegistryReadiness readiness = new RegistryReadiness(this::publishReadiness);

	/**
	 * Creates a registry whose listeners stop alone when their retries run out.
	 * @param setup prepares each group's slot and publication and configures its consumer
	 * @param observers further listeners of every group's consumer
	 */
	public PostlogListenerRegistry(ConsumerSetup setup, List<ConsumerListener> observers) {
		this(setup, observers, List.of(), PgListenerErrorHandler.STOP);
	}

	/**
	 * Creates a registry.
	 * @param setup prepares each group's slot and publication and configures its consumer
	 * @param observers further listeners of every group's consumer
	 * @param groupObservers make a listener per group, for example tagged metrics
	 * @param defaultErrorHandler the error handler of listeners that name none
	 */
	public PostlogListenerRegistry(ConsumerSetup setup, List<ConsumerListener> observers,
			List<GroupObserver> groupObservers, PgListenerErrorHandler defaultErrorHandler) {
		this.setup = setup;
		this.observers = List.copyOf(observers);
		this.groupObservers = List.copyOf(groupObservers);
		this.defaultErrorHandler = defaultErrorHandler;
	}

	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	/**
	 * Sets what readiness follows ({@link Readiness#STARTED} by default); before
	 * {@link #start()}.
	 * @param readiness the readiness policy
	 */
	public void setReadiness(Readiness readiness) {
		this.readiness.policy(readiness);
	}

	/**
	 * Runs each listener call in an observation; set before {@link #start()}.
	 * @param observations the observations
	 */
	public void setListenerObservations(PostlogListenerObservations observations) {
		this.observations = observations;
	}

	/**
	 * Has each group read the {@code postlog.trace} messages of its transactions, so that
	 * its listeners' observations continue the writers' traces; set before
	 * {@link #start()}.
	 * @param propagation whether to
	 */
	public void setTracePropagation(boolean propagation) {
		this.tracePropagation = propagation;
	}

	/**
	 * Starts a listener that is stopped or paused (or was not started with its group): it
	 * receives what its group's slot kept for it from its position, once, and the group's
	 * other listeners are not called again for it. Takes effect once nothing is in flight
	 * in its group.
	 * @param id the listener's id
	 * @throws IllegalArgumentException if no running group has a listener with that id
	 * @throws IllegalStateException if its group keeps one checkpoint for every listener
	 * ({@code postlog.checkpoint.store=jdbc})
	 */
	public void start(String id) {
		control(id).start();
	}

	/**
	 * Stops a listener after the transaction in delivery; the group's slot is confirmed
	 * no further than it until it is started again.
	 * @param id the listener's id
	 * @throws IllegalArgumentException if no running group has a listener with that id
	 * @throws IllegalStateException if its group keeps one checkpoint for every listener
	 */
	public void stop(String id) {
		control(id).stop();
	}

	/**
	 * Pauses a listener after the transaction in delivery: as {@link #stop(String)},
	 * reported as {@code PAUSED}.
	 * @param id the listener's id
	 * @throws IllegalArgumentException if no running group has a listener with that id
	 * @throws IllegalStateException if its group keeps one checkpoint for every listener
	 */
	public void pause(String id) {
		control(id).pause();
	}

	/**
	 * Resumes a paused listener from its position.
	 * @param id the listener's id
	 * @throws IllegalArgumentException if no running group has a listener with that id
	 * @throws IllegalStateException if its group keeps one checkpoint for every listener
	 */
	public void resume(String id) {
		control(id).resume();
	}

	/**
	 * Returns a listener's control, with its state.
	 * @param id the listener's id
	 * @return the control, or {@code null} if no running group has a listener with that
	 * id
	 */
	public @Nullable SubscriptionControl listener(String id) {
		for (PostlogConsumerGroup group : this.groups) {
			SubscriptionControl control = group.listener(id);
			if (control != null) {
				return control;
			}
		}
		return null;
	}

	private SubscriptionControl control(String id) {
		SubscriptionControl control = listener(id);
		if (control == null) {
			throw new IllegalArgumentException("No postlog listener has the id '" + id + "'"
					+ (this.groups.isEmpty() ? " (postlog has not started)" : ""));
		}
		return control;
	}

	/**
	 * Returns a registered listener.
	 * @param id the listener's id
	 * @return the listener, or {@code null} if none has that id
	 */
	synchronized @Nullable ListenerEndpoint endpoint(String id) {
		return this.endpoints.stream().filter((endpoint) -> endpoint.id().equals(id)).findFirst().orElse(null);
	}

	synchronized void register(Collection<ListenerEndpoint> endpoints) {
		if (this.running) {
			logger.warn("Ignoring {} postlog listener(s) found after start", endpoints.size());
			return;
		}
		this.endpoints.addAll(endpoints);
	}

	/**
	 * Returns the running groups.
	 * @return the groups, the default group first, empty before start or without
	 * listeners
	 */
	public List<PostlogConsumerGroup> groups() {
		return this.groups;
	}

	/**
	 * Returns a running group.
	 * @param name the group's name, {@link PostlogConsumerGroup#DEFAULT} for the default
	 * group
	 * @return the group, or {@code null} if no listener names it or the registry has not
	 * started
	 */
	public @Nullable PostlogConsumerGroup group(String name) {
		for (PostlogConsumerGroup group : this.groups) {
			if (group.name().equals(name)) {
				return group;
			}
		}
		return null;
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
		ListenerEndpoints.requireDistinctIds(this.endpoints);
		publishReadiness(ReadinessState.REFUSING_TRAFFIC);
		List<PostlogConsumerGroup> started = new ArrayList<>();
		Map<String, List<ListenerEndpoint>> byGroup = ListenerEndpoints.byGroup(this.endpoints);
		this.readiness.expect(byGroup.size());
		try {
			for (Map.Entry<String, List<ListenerEndpoint>> entry : byGroup.entrySet()) {
				PostlogConsumerGroup group = startGroup(entry.getKey(), entry.getValue());
				started.add(group);
				this.groups = List.copyOf(started);
			}
		}
		catch (RuntimeException ex) {
			GroupStops.stopAll(started);
			this.groups = List.of();
			throw ex;
		}
		this.running = true;
		logger.info("postlog started {} listener(s) in {} group(s)", this.endpoints.size(), started.size());
	}

	private PostlogConsumerGroup startGroup(String name, List<ListenerEndpoint> endpoints) {
		GroupPlan plan = this.setup.prepare(name, ListenerEndpoints.tables(endpoints));
		PostlogConsumerGroup group = new PostlogConsumerGroup(name, plan.monitor(), endpoints, this::publish);
		if (plan.catalog() != null) {
			new ListenerStartupChecks(plan.catalog()).check(group, plan);
		}
		ReplicationConsumer.Builder builder = plan.builder();
		PostlogListenerObservations observations = this.observations;
		if (this.tracePropagation && observations != null && observations.observes()) {
			TraceMessages traces = new TraceMessages();
			builder.subscribe(Subscription.onMessage(TraceMessages.PREFIX, traces::accept));
			observations = observations.withTraces(traces);
		}
		for (ListenerEndpoint endpoint : endpoints) {
			PgListenerErrorHandler handler = (endpoint.errorHandler() != null) ? endpoint.errorHandler()
					: this.defaultErrorHandler;
			builder.subscribe(ListenerSubscriptions.of(endpoint, new ListenerFailureHandler(endpoint, handler, group),
					observations, ToastFiller.of(endpoint, plan.catalog(), group.toastReselects(), plan.masks())));
		}
		List<ConsumerListener> listeners = new ArrayList<>();
		listeners.add(group.recorder());
		listeners.add(new GroupNotices(group, this.readiness::groupStreaming));
		listeners.add(new ConsumerListener() {

			@Override
			public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
				PostlogListenerRegistry.this.readiness.reassess(PostlogListenerRegistry.this.groups);
			}

			@Override
			public void subscriptionStateChanged(SubscriptionControl control, SubscriptionState previous,
					@Nullable Throwable cause) {
				PostlogListenerRegistry.this.readiness.reassess(PostlogListenerRegistry.this.groups);
			}

		});
		listeners.addAll(this.observers);
		for (GroupObserver observer : this.groupObservers) {
			listeners.add(observer.observe(group));
		}
		builder.listener(GuardedConsumerListener.of(listeners));
		ReplicationConsumer consumer = builder.build();
		group.started(consumer);
		consumer.start();
		// The slot and publication exist now: a reading taken before is out of date.
		plan.monitor().changed();
		return group;
	}

	@Override
	public void stop() {
		List<PostlogConsumerGroup> groups;
		synchronized (this) {
			groups = this.groups;
			this.running = false;
		}
		GroupStops.stopAll(groups);
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
	 * Returns the default group's state (the first group's, when no listener is in the
	 * default group).
	 * @return the state, or {@code null} when no consumer runs
	 */
	public @Nullable ConsumerState state() {
		List<PostlogConsumerGroup> groups = this.groups;
		return groups.isEmpty() ? null : groups.get(0).state();
	}

	/**
	 * Returns the failure behind the latest move of the default (or first) group to
	 * {@code RETRYING}, {@code STANDBY} or {@code FAILED}.
	 * @return the failure, or {@code null}
	 */
	public @Nullable Throwable lastFailure() {
		List<PostlogConsumerGroup> groups = this.groups;
		return groups.isEmpty() ? null : groups.get(0).lastFailure();
	}

	/**
	 * Keeps readiness refusing while a group has not streamed yet: Spring Boot publishes
	 * {@code ACCEPTING_TRAFFIC} once the application has started, which would otherwise
	 * overwrite the registry's {@code REFUSING_TRAFFIC} when a consumer is slow to
	 * connect.
	 * @param event a readiness change
	 */
	@Override
	public void onApplicationEvent(AvailabilityChangeEvent<ReadinessState> event) {
		if (event.getState() != ReadinessState.ACCEPTING_TRAFFIC || event.getSource() == this) {
			return;
		}
		this.readiness.applicationAccepting();
	}

	private void publishReadiness(ReadinessState state) {
		ApplicationEventPublisher publisher = this.publisher;
		if (publisher != null) {
			AvailabilityChangeEvent.publish(publisher, this, state);
		}
	}

	private void publish(ApplicationEvent event) {
		ApplicationEventPublisher publisher = this.publisher;
		if (publisher != null) {
			publisher.publishEvent(event);
		}
	}

	/**
	 * What the application's readiness follows ({@code postlog.health.readiness}).
	 */
	public enum Readiness {

		/**
		 * Refusing traffic until every group first streams (or waits in standby), then
		 * accepting it for good: the default, so that a listener's bug does not take the
		 * application out of service.
		 */
		STARTED,

		/**
		 * As {@link #STARTED}, and afterwards refusing traffic while a group is not
		 * delivering ({@code RETRYING}, {@code FAILED}) or one of its listeners is
		 * stopped by its error handler: for applications that serve what their listeners
		 * build.
		 */
		DELIVERING

	}

	/**
	 * Prepares a group's slot and publication settings and returns a consumer builder
	 * configured with everything but its subscriptions and listener.
	 */
	@FunctionalInterface
	public interface ConsumerSetup {

		/**
		 * Plans a group; runs while the application starts, on its thread, before the
		 * group's start-up checks.
		 * @param group the group's name, {@link PostlogConsumerGroup#DEFAULT} for the
		 * default group
		 * @param listenerTables the tables the group's listeners name, empty for all
		 * published
		 * @return the plan
		 * @throws io.postlog.PostlogException to fail start-up
		 */
		GroupPlan prepare(String group, List<TableId> listenerTables);

	}

	/**
	 * What a group streams from and how, as {@link ConsumerSetup} plans it.
	 *
	 * @param builder the consumer builder, configured but for subscriptions and listener
	 * @param monitor reads the group's slot and publication
	 * @param publicationMode how the publication is managed
	 * @param publishedTables the tables the publication is to hold, empty for every table
	 * the listeners' filters name (or all, without filters)
	 * @param catalog where tables are looked up for the start-up checks, or {@code null}
	 * to skip them
	 * @param decoder the group's decoder, which chooses the tables it streams: the
	 * publication's (pgoutput), a list (wal2json) or replication sets (pglogical)
	 * @param masks the column masks the consumer applies, which values a TOAST policy
	 * fills in must get too
	 */
	public record GroupPlan(ReplicationConsumer.Builder builder, PostlogSlotMonitor monitor,
			PublicationMode publicationMode, List<TableId> publishedTables, @Nullable DataSource catalog,
			LogicalDecoder decoder, ColumnMasks masks) {
	}

	/**
	 * Makes a listener of one group's consumer, for example meters tagged with the group.
	 */
	@FunctionalInterface
	public interface GroupObserver {

		/**
		 * Makes the listener; called while the group starts.
		 * @param group the group
		 * @return its listener
		 */
		ConsumerListener observe(PostlogConsumerGroup group);

	}

}
