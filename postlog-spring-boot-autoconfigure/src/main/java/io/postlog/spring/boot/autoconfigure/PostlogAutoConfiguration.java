package io.postlog.spring.boot.autoconfigure;

import java.time.Duration;

import javax.sql.DataSource;

import io.postlog.TableId;
import io.postlog.consumer.ConsumerListener;
import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.heartbeat.HeartbeatWriter;
import io.postlog.spring.PostlogListenerAnnotationBeanPostProcessor;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogSlotMonitor;
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
import org.springframework.context.annotation.Bean;
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
	PostlogSlotMonitor postlogSlotMonitor(PostlogProperties properties, DataSource dataSource) {
		return new PostlogSlotMonitor(dataSource, properties.getSlot().getName(),
				properties.getPublication().getName());
	}

	@Bean
	@ConditionalOnMissingBean
	PostlogListenerRegistry postlogListenerRegistry(PostlogProperties properties, DataSource dataSource,
			ObjectProvider<JdbcConnectionDetails> connectionDetails, ObjectProvider<ConsumerListener> listeners,
			ObjectProvider<HeartbeatTracker> heartbeats) {
		requireSupported(properties);
		ReplicationConnectionFactory connectionFactory = replicationConnectionFactory(properties,
				connectionDetails.getIfAvailable());
		return new PostlogListenerRegistry(
				new PostlogConsumerSetup(properties, dataSource, connectionFactory, heartbeats.getIfAvailable()),
				listeners.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty("postlog.heartbeat.interval")
	HeartbeatTracker postlogHeartbeatTracker(PostlogProperties properties) {
		PostlogProperties.Heartbeat heartbeat = properties.getHeartbeat();
		Duration timeout = (heartbeat.getTimeout() != null) ? heartbeat.getTimeout()
				: heartbeat.getInterval().multipliedBy(5);
		return new HeartbeatTracker(properties.getSlot().getName(), timeout);
	}

	@Bean
	@ConditionalOnProperty("postlog.heartbeat.interval")
	PostlogHeartbeat postlogHeartbeat(PostlogProperties properties, DataSource dataSource, HeartbeatTracker tracker) {
		PostlogProperties.Heartbeat heartbeat = properties.getHeartbeat();
		HeartbeatWriter writer = new HeartbeatWriter(properties.getSlot().getName(), tracker.instance(),
				TableId.parse(heartbeat.getTable()));
		return new PostlogHeartbeat(dataSource, heartbeat.getInterval(), writer, tracker);
	}

	private static ReplicationConnectionFactory replicationConnectionFactory(PostlogProperties properties,
			JdbcConnectionDetails connectionDetails) {
		PostlogProperties.Datasource datasource = properties.getDatasource();
		if (datasource.getUrl() != null) {
			return ReplicationConnectionFactory.of(datasource.getUrl(), datasource.getUsername(),
					datasource.getPassword());
		}
		if (connectionDetails == null) {
			throw new InvalidConfigurationPropertyValueException("postlog.datasource.url", null,
					"The application has no JdbcConnectionDetails to take the replication connection from; "
							+ "set postlog.datasource.url, username and password");
		}
		return ReplicationConnectionFactory.of(connectionDetails.getJdbcUrl(), connectionDetails.getUsername(),
				connectionDetails.getPassword());
	}

	private static void requireSupported(PostlogProperties properties) {
		if (properties.getDecoder() != PostlogProperties.Decoder.PGOUTPUT) {
			throw new InvalidConfigurationPropertyValueException("postlog.decoder", properties.getDecoder(),
					"This decoder is not supported yet; use pgoutput");
		}
		if (properties.getSnapshot().getMode() != PostlogProperties.SnapshotMode.NEVER) {
			throw new InvalidConfigurationPropertyValueException("postlog.snapshot.mode",
					properties.getSnapshot().getMode(), "The initial snapshot is not supported yet; use never");
		}
		if (properties.getCheckpoint().getStore() != PostlogProperties.CheckpointStore.SLOT) {
			throw new InvalidConfigurationPropertyValueException("postlog.checkpoint.store",
					properties.getCheckpoint().getStore(), "This checkpoint store is not supported yet; use slot");
		}
	}

}
