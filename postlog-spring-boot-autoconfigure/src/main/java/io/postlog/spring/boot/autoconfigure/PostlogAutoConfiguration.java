package io.postlog.spring.boot.autoconfigure;

import java.time.Duration;

import javax.sql.DataSource;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.ConsumerListener;
import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.heartbeat.HeartbeatWriter;
import io.postlog.spring.DeadLetters;
import io.postlog.spring.PgListenerErrorHandler;
import io.postlog.spring.PostlogDeadLetterErrorHandler;
import io.postlog.spring.PostlogFence;
import io.postlog.spring.PostlogListenerAnnotationBeanPostProcessor;
import io.postlog.spring.PostlogListenerObservations;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogServerPoller;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.spring.PostlogTracePropagation;
import io.postlog.spring.PostlogStreamingMonitor;
import io.postlog.snapshot.SnapshotConnections;
import io.postlog.stream.ReplicationConnectionFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for postlog: streams the application's database to its
 * {@code @PgChangeListener} and {@code @PgMessageListener} methods.
 */
// After the availability bean, so it hears Boot's readiness events before the registry
// does, and the registry's answer to them is the one that stays.
@AutoConfiguration(after = { DataSourceAutoConfiguration.class, ApplicationAvailabilityAutoConfiguration.class })
@ConditionalOnClass({ DataSource.class, JdbcTemplate.class })
@ConditionalOnBean(DataSource.class)
@ConditionalOnBooleanProperty(name = "postlog.enabled", matchIfMissing = true)
@EnableConfigurationProperties(PostlogProperties.class)
public final class PostlogAutoConfiguration {

	PostlogAutoConfiguration() {
	}

	@Bean
	static PostlogListenerAnnotationBeanPostProcessor postlogListenerAnnotationBeanPostProcessor() {
		return new PostlogListenerAnnotationBeanPostProcessor();
	}

	@Bean
	@ConditionalOnMissingBean
	PostlogServerPoller postlogServerPoller(PostlogProperties properties) {
		return new PostlogServerPoller(properties.getHealth().getPollInterval());
	}

	@Bean
	@ConditionalOnMissingBean
	PostlogSlotMonitor postlogSlotMonitor(PostlogProperties properties, DataSource dataSource,
			PostlogServerPoller poller) {
		return new PostlogSlotMonitor(dataSource, properties.getSlot().getName(), properties.getPublication().getName(),
				poller);
	}

	@Bean
	@ConditionalOnMissingBean(PostlogConnectionDetails.class)
	PostlogConnectionDetails postlogConnectionDetails(PostlogProperties properties,
			ObjectProvider<JdbcConnectionDetails> connectionDetails) {
		if (properties.getDatasource().getUrl() != null) {
			return new PropertiesPostlogConnectionDetails(properties.getDatasource());
		}
		JdbcConnectionDetails jdbc = connectionDetails.getIfAvailable();
		if (jdbc == null) {
			throw new InvalidConfigurationPropertyValueException("postlog.datasource.url", null,
					"The application has no JdbcConnectionDetails to take the replication connection from; "
							+ "set postlog.datasource.url, username and password");
		}
		return new JdbcPostlogConnectionDetails(jdbc);
	}

	@Bean
	@ConditionalOnMissingBean
	PostlogListenerRegistry postlogListenerRegistry(PostlogProperties properties, DataSource dataSource,
			PostlogConnectionDetails connectionDetails, ObjectProvider<ConsumerListener> listeners,
			ObjectProvider<PostlogListenerRegistry.GroupObserver> groupObservers,
			ObjectProvider<PostlogDeadLetterErrorHandler> deadLetter, ObjectProvider<HeartbeatTracker> heartbeats,
			ObjectProvider<PlatformTransactionManager> transactionManagers, PostlogServerPoller poller,
			PostlogSlotMonitor monitor, ObjectProvider<PostlogListenerObservations> observations) {
		requireSupported(properties);
		ReplicationConnectionFactory connectionFactory = ReplicationConnectionFactory.of(connectionDetails.getJdbcUrl(),
				connectionDetails.getUsername(), connectionDetails.getPassword());
		// The snapshot is read from the database the slot is in, on connections of its
		// own: a long COPY must not hold the application's pool.
		SnapshotConnections snapshotConnections = SnapshotConnections.of(connectionDetails.getJdbcUrl(),
				connectionDetails.getUsername(), connectionDetails.getPassword());
		PostlogListenerRegistry registry = new PostlogListenerRegistry(
				new PostlogConsumerSetup(properties, dataSource, connectionFactory, snapshotConnections,
						heartbeats.getIfAvailable(), transactionManagers, poller, monitor),
				listeners.orderedStream().toList(), groupObservers.orderedStream().toList(),
				defaultErrorHandler(properties, deadLetter));
		registry.setReadiness(properties.getHealth().getReadiness());
		observations.ifAvailable(registry::setListenerObservations);
		registry.setTracePropagation(properties.getTracing().isPropagate());
		return registry;
	}

	@Bean
	@ConditionalOnMissingBean
	PostlogFence postlogFence(PostlogListenerRegistry registry, DataSource dataSource) {
		return new PostlogFence(registry, dataSource);
	}

	@Bean
	@ConditionalOnProperty(name = "postlog.listener.error-handler", havingValue = "dead-letter")
	PostlogDeadLetterErrorHandler postlogDeadLetterErrorHandler(PostlogProperties properties, DataSource dataSource) {
		PostlogDeadLetterErrorHandler handler = new PostlogDeadLetterErrorHandler(new JdbcTemplate(dataSource),
				properties::slotName, deadLetterTable(properties));
		handler.createTableIfMissing();
		return handler;
	}

	@Bean
	@ConditionalOnProperty(name = "postlog.listener.error-handler", havingValue = "dead-letter")
	DeadLetters postlogDeadLetters(PostlogProperties properties, DataSource dataSource,
			PostlogListenerRegistry registry) {
		return new DeadLetters(new JdbcTemplate(dataSource), registry, deadLetterTable(properties));
	}

	private static TableId deadLetterTable(PostlogProperties properties) {
		TableId table = TableId.parse(properties.getListener().getDeadLetterTable());
		// Refused here, before any SQL, if the name is not a valid identifier.
		PgIdentifiers.quote(table);
		return table;
	}

	private static void requireSupportedSnapshot(PostlogProperties properties) {
		PostlogSnapshotProperties snapshot = properties.getSnapshot();
		if (snapshot.getParallelism() < 1 || snapshot.getParallelism() > 64) {
			throw new InvalidConfigurationPropertyValueException("postlog.snapshot.parallelism",
					snapshot.getParallelism(), "A snapshot is read on 1 to 64 connections");
		}
		if (snapshot.getChunkSize() < 1) {
			throw new InvalidConfigurationPropertyValueException("postlog.snapshot.chunk-size", snapshot.getChunkSize(),
					"A chunk holds at least 1 row");
		}
		if (snapshot.getMaxQueuedBackfills() < 1) {
			throw new InvalidConfigurationPropertyValueException("postlog.snapshot.max-queued-backfills",
					snapshot.getMaxQueuedBackfills(), "At least 1 backfill must be allowed to wait or run");
		}
		if (snapshot.getMode() != PostlogProperties.SnapshotMode.INITIAL) {
			return;
		}
		if (properties.getSlot().getLifecycle() == SlotLifecycle.TEMPORARY) {
			throw new InvalidConfigurationPropertyValueException("postlog.snapshot.mode", snapshot.getMode(),
					"An initial snapshot is handed over to a slot that outlives its connection, and a temporary "
							+ "slot ends with it; use postlog.slot.lifecycle=owned (dropped on stop) or "
							+ "create-if-missing");
		}
		if (properties.getDecoder() != PostlogProperties.Decoder.PGOUTPUT) {
			throw new InvalidConfigurationPropertyValueException("postlog.snapshot.mode", snapshot.getMode(),
					"An initial snapshot is taken for the pgoutput plugin only, not " + properties.getDecoder()
							+ "; use postlog.decoder=pgoutput with it");
		}
		if (properties.getSlot().isFailover()) {
			throw new InvalidConfigurationPropertyValueException("postlog.snapshot.mode", snapshot.getMode(),
					"An initial snapshot creates the slot with its snapshot, which cannot fail over yet; turn "
							+ "postlog.slot.failover off, and once the slot exists enable failover on it with "
							+ "ALTER_REPLICATION_SLOT <slot> (FAILOVER true) on a replication connection");
		}
	}

	private static PgListenerErrorHandler defaultErrorHandler(PostlogProperties properties,
			ObjectProvider<PostlogDeadLetterErrorHandler> deadLetter) {
		return switch (properties.getListener().getErrorHandler()) {
			case STOP -> PgListenerErrorHandler.STOP;
			case SKIP -> PgListenerErrorHandler.SKIP;
			case DEAD_LETTER -> deadLetter.getObject();
		};
	}

	@Bean
	@ConditionalOnMissingBean
	PostlogStreamingMonitor postlogStreamingMonitor(PostlogProperties properties, DataSource dataSource,
			PostlogSlotMonitor slotMonitor) {
		return new PostlogStreamingMonitor(dataSource, properties.getSlot().getName(),
				properties.getStreaming().isEnabled(), slotMonitor);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty("postlog.heartbeat.interval")
	HeartbeatTracker postlogHeartbeatTracker(PostlogProperties properties) {
		PostlogHeartbeatProperties heartbeat = properties.getHeartbeat();
		Duration timeout = (heartbeat.getTimeout() != null) ? heartbeat.getTimeout()
				: heartbeat.getInterval().multipliedBy(5);
		return new HeartbeatTracker(properties.getSlot().getName(), timeout);
	}

	@Bean
	@ConditionalOnProperty("postlog.heartbeat.interval")
	PostlogHeartbeat postlogHeartbeat(PostlogProperties properties, DataSource dataSource, HeartbeatTracker tracker) {
		PostlogHeartbeatProperties heartbeat = properties.getHeartbeat();
		HeartbeatWriter writer = new HeartbeatWriter(properties.getSlot().getName(), tracker.instance(),
				TableId.parse(heartbeat.getTable()));
		return new PostlogHeartbeat(dataSource, heartbeat.getInterval(), writer, tracker);
	}

	private static void requireSupported(PostlogProperties properties) {
		requireSupportedSnapshot(properties);
		PostlogCheckpointProperties checkpoint = properties.getCheckpoint();
		if (checkpoint.getBatchTransactions() < 1) {
			throw new InvalidConfigurationPropertyValueException("postlog.checkpoint.batch-transactions",
					checkpoint.getBatchTransactions(), "A sink transaction covers at least 1 source transaction");
		}
		if (checkpoint.getBatchMaxDelay() == null || checkpoint.getBatchMaxDelay().isNegative()
				|| checkpoint.getBatchMaxDelay().isZero()) {
			throw new InvalidConfigurationPropertyValueException("postlog.checkpoint.batch-max-delay",
					checkpoint.getBatchMaxDelay(), "The delay must be positive");
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ObservationRegistry.class)
	static class ObservationConfiguration {

		@Bean
		@ConditionalOnMissingBean
		PostlogListenerObservations postlogListenerObservations(ObjectProvider<ObservationRegistry> registry) {
			return new PostlogListenerObservations(registry.getIfAvailable(() -> ObservationRegistry.NOOP));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Tracer.class, TransactionExecutionListener.class })
	@ConditionalOnBooleanProperty("postlog.tracing.propagate")
	static class TracingConfiguration {

		@Bean
		@ConditionalOnMissingBean
		PostlogTracePropagation postlogTracePropagation(DataSource dataSource, Tracer tracer, Propagator propagator) {
			return new PostlogTracePropagation(dataSource, tracer, propagator);
		}

	}

}
