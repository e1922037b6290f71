package io.postlog.kafka.autoconfigure;

import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.postlog.TableId;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.kafka.KafkaRelay;
import io.postlog.kafka.KafkaRelayBuilder;
import io.postlog.kafka.KafkaRelayCustomizer;
import io.postlog.kafka.PostlogKafkaRelay;
import io.postlog.kafka.actuate.PostlogKafkaEndpointConsumer;
import io.postlog.kafka.health.PostlogKafkaHealthIndicator;
import io.postlog.kafka.metrics.PostlogKafkaMetrics;
import io.postlog.spring.PostlogServerPoller;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.spring.boot.autoconfigure.PostlogAutoConfiguration;
import io.postlog.spring.boot.autoconfigure.PostlogConnectionDetails;
import io.postlog.spring.boot.autoconfigure.PostlogConsumerMapping;
import io.postlog.spring.boot.autoconfigure.PostlogDatasourceProperties;
import io.postlog.spring.boot.autoconfigure.PostlogProperties;
import io.postlog.spring.boot.metrics.GroupMeters;
import io.postlog.stream.ReplicationConnectionFactory;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the Kafka relay: with {@code postlog.kafka.enabled=true}, a
 * consumer of its own slot and publication relays {@code postlog.kafka.tables} and the
 * outbox to Kafka, exactly once, with the Kafka client configured by
 * {@code spring.kafka.*} and Boot's {@code KafkaConnectionDetails} (servers, security
 * protocol, SSL bundle), as Boot configures its own Kafka clients, and the replication
 * connection by the {@code PostlogConnectionDetails} bean (an application's own, else
 * {@code postlog.datasource.*} or the application's {@code JdbcConnectionDetails}).
 */
@AutoConfiguration(
		after = { DataSourceAutoConfiguration.class, KafkaAutoConfiguration.class, PostlogAutoConfiguration.class })
@ConditionalOnClass({ KafkaProducer.class, ReplicationConsumer.class, PostlogProperties.class })
@ConditionalOnBean(DataSource.class)
@ConditionalOnBooleanProperty(name = "postlog.kafka.enabled")
@EnableConfigurationProperties({ PostlogKafkaProperties.class, PostlogProperties.class, KafkaProperties.class })
public final class PostlogKafkaAutoConfiguration {

	PostlogKafkaAutoConfiguration() {
	}

	@Bean
	@ConditionalOnMissingBean
	PostlogKafkaRelay postlogKafkaRelay(PostlogKafkaProperties properties, PostlogProperties postlog,
			KafkaProperties kafka, KafkaConnectionDetails connection, DataSource dataSource,
			ObjectProvider<PostlogConnectionDetails> postlogConnection,
			ObjectProvider<JdbcConnectionDetails> jdbcConnection, ObjectProvider<KafkaRelayCustomizer> customizers) {
		PostlogConnectionDetails details = postlogConnection.getIfAvailable();
		ReplicationConnectionFactory connections = (details != null)
				? ReplicationConnectionFactory.of(details.getJdbcUrl(), details.getUsername(), details.getPassword())
				: connectionFactory(postlog, jdbcConnection.getIfAvailable());
		return new PostlogKafkaRelay(() -> relay(properties, postlog, kafka, connection, dataSource, connections,
				customizers.orderedStream().toList()), properties.isAutoStartup());
	}

	private static KafkaRelay relay(PostlogKafkaProperties properties, PostlogProperties postlog, KafkaProperties kafka,
			KafkaConnectionDetails connection, DataSource dataSource, ReplicationConnectionFactory connections,
			List<KafkaRelayCustomizer> customizers) {
		ReplicationConsumer.Builder consumer = PostlogConsumerMapping
			.mapConnection(postlog, ReplicationConsumer.builder())
			.connectionFactory(connections)
			.adminDataSource(dataSource)
			.slotLifecycle(properties.getSlot().getLifecycle())
			.publicationMode(properties.getPublication().getMode());
		PostlogKafkaProperties.Outbox outbox = properties.getOutbox();
		KafkaRelayBuilder builder = KafkaRelay.builder()
			.consumer(consumer)
			.dataSource(dataSource)
			.slotName(properties.getSlot().getName())
			.publicationName(properties.getPublication().getName())
			.tables(properties.getTables().stream().map(TableId::parse).toList())
			.filters(PostlogConsumerMapping.filters(properties.getFilters()))
			.topic(properties.getTopic())
			.schemaTopic(properties.getSchemaTopic())
			.offsetsTopic(properties.getOffsetsTopic())
			.format(properties.getFormat())
			.cloudEventsMode(properties.getCloudevents().getMode())
			.outboxTable((outbox.getTable() != null) ? TableId.parse(outbox.getTable()) : null)
			.outboxTopic(outbox.getTopic())
			.outboxMessagePrefix(outbox.getMessagePrefix())
			.batch(properties.getBatchTransactions(), properties.getBatchDelay())
			.transactionTimeout(properties.getTransactionTimeout())
			.initTimeout(properties.getInitTimeout())
			.kafkaProperties(Map.of(), RelayKafkaClients.producer(kafka, connection),
					RelayKafkaClients.consumer(kafka, connection), RelayKafkaClients.admin(kafka, connection));
		if (properties.getTransactionalId() != null) {
			builder.transactionalId(properties.getTransactionalId());
		}
		for (KafkaRelayCustomizer customizer : customizers) {
			customizer.customize(builder);
		}
		return builder.build();
	}

	/**
	 * The replication connection without a {@link PostlogConnectionDetails} bean
	 * (postlog's own auto-configuration off, {@code postlog.enabled=false}): as that bean
	 * would be.
	 */
	private static ReplicationConnectionFactory connectionFactory(PostlogProperties properties,
			@Nullable JdbcConnectionDetails connectionDetails) {
		PostlogDatasourceProperties datasource = properties.getDatasource();
		if (datasource.getUrl() != null) {
			return ReplicationConnectionFactory.of(datasource.getUrl(), datasource.getUsername(),
					datasource.getPassword());
		}
		if (connectionDetails == null) {
			throw new InvalidConfigurationPropertyValueException("postlog.datasource.url", null,
					"The application has no JdbcConnectionDetails to take the relay's replication connection from; "
							+ "set postlog.datasource.url, username and password");
		}
		return ReplicationConnectionFactory.of(connectionDetails.getJdbcUrl(), connectionDetails.getUsername(),
				connectionDetails.getPassword());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterBinder.class)
	static class RelayMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		PostlogKafkaMetrics postlogKafkaMetrics(PostlogKafkaProperties properties, DataSource dataSource,
				ObjectProvider<PostlogKafkaRelay> relay, ObjectProvider<PostlogServerPoller> poller) {
			PostlogSlotMonitor monitor = new PostlogSlotMonitor(dataSource, properties.getSlot().getName(),
					properties.getPublication().getName(), poller.getIfAvailable());
			return new PostlogKafkaMetrics(() -> relay.getObject().relay(), properties.getSlot().getName(),
					new GroupMeters(properties.getSlot().getName(), PostlogKafkaMetrics.GROUP, monitor));
		}

		@Bean
		KafkaRelayCustomizer postlogKafkaMetricsCustomizer(PostlogKafkaMetrics metrics) {
			return (builder) -> builder.listener(metrics.slotMetrics())
				.commitListener((records, commitTime, kafkaCommit) -> metrics.committed(commitTime, kafkaCommit));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	static class RelayEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		PostlogKafkaEndpointConsumer postlogKafkaEndpointConsumer(PostlogKafkaRelay relay,
				PostlogKafkaProperties properties, DataSource dataSource, ObjectProvider<PostlogServerPoller> poller) {
			return new PostlogKafkaEndpointConsumer(relay, new PostlogSlotMonitor(dataSource,
					properties.getSlot().getName(), properties.getPublication().getName(), poller.getIfAvailable()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
	@ConditionalOnEnabledHealthIndicator("postlogKafka")
	static class RelayHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "postlogKafkaHealthIndicator")
		PostlogKafkaHealthIndicator postlogKafkaHealthIndicator(PostlogKafkaRelay relay,
				PostlogKafkaProperties properties, DataSource dataSource, ObjectProvider<PostlogServerPoller> poller) {
			return new PostlogKafkaHealthIndicator(relay, new PostlogSlotMonitor(dataSource,
					properties.getSlot().getName(), properties.getPublication().getName(), poller.getIfAvailable()));
		}

	}

}
