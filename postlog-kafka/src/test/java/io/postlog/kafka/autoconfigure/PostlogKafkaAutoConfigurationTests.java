package io.postlog.kafka.autoconfigure;

import java.time.Duration;

import javax.sql.DataSource;

import io.postlog.kafka.CloudEventsMode;
import io.postlog.kafka.PostlogKafkaRelay;
import io.postlog.kafka.RelayFormat;
import io.postlog.kafka.health.PostlogKafkaHealthIndicator;
import io.postlog.kafka.metrics.PostlogKafkaMetrics;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the relay's auto-configuration applies; nothing here touches a server (the relay
 * is built when it starts, and these contexts do not start it).
 */
class PostlogKafkaAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class, PostlogKafkaAutoConfiguration.class))
		.withBean(DataSource.class, PGSimpleDataSource::new)
		.withPropertyValues("postlog.datasource.url=jdbc:postgresql://127.0.0.1:1/none",
				"postlog.kafka.auto-startup=false");

	@Test
	void relayIsOffUnlessEnabled() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(PostlogKafkaRelay.class));
	}

	@Test
	void enabledRelayComesWithHealthAndMeters() {
		this.runner.withPropertyValues("postlog.kafka.enabled=true", "postlog.kafka.tables=orders")
			.run((context) -> assertThat(context).hasSingleBean(PostlogKafkaRelay.class)
				.hasSingleBean(PostlogKafkaHealthIndicator.class)
				.hasSingleBean(PostlogKafkaMetrics.class));
	}

	@Test
	void relayNeedsNeitherMicrometerNorActuator() {
		this.runner.withClassLoader(new FilteredClassLoader(MeterBinder.class, HealthIndicator.class))
			.withPropertyValues("postlog.kafka.enabled=true", "postlog.kafka.tables=orders")
			.run((context) -> assertThat(context).hasSingleBean(PostlogKafkaRelay.class)
				.doesNotHaveBean(PostlogKafkaMetrics.class)
				.doesNotHaveBean(PostlogKafkaHealthIndicator.class));
	}

	@Test
	void relayWithoutAReplicationConnectionFailsNamingTheProperty() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class, PostlogKafkaAutoConfiguration.class))
			.withBean(DataSource.class, PGSimpleDataSource::new)
			.withPropertyValues("postlog.kafka.enabled=true")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("postlog.datasource.url"));
	}

	@Test
	void relayNeedsADataSource() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class, PostlogKafkaAutoConfiguration.class))
			.withPropertyValues("postlog.kafka.enabled=true")
			.run((context) -> assertThat(context).doesNotHaveBean(PostlogKafkaRelay.class));
	}

	@Test
	void propertiesBindWithTheirDefaults() {
		this.runner
			.withPropertyValues("postlog.kafka.enabled=true", "postlog.kafka.outbox.table=app.outbox",
					"postlog.kafka.batch-delay=20ms")
			.run((context) -> {
				PostlogKafkaProperties properties = context.getBean(PostlogKafkaProperties.class);
				assertThat(properties.getSlot().getName()).isEqualTo("postlog_kafka");
				assertThat(properties.getTopic()).isEqualTo("{schema}.{table}");
				assertThat(properties.getOffsetsTopic()).isEqualTo("postlog.offsets");
				assertThat(properties.getOutbox().getTable()).isEqualTo("app.outbox");
				assertThat(properties.getBatchDelay().toMillis()).isEqualTo(20);
				assertThat(properties.getInitTimeout()).isEqualTo(Duration.ofSeconds(30));
			});
	}

	@Test
	void initTimeoutBinds() {
		this.runner.withPropertyValues("postlog.kafka.enabled=true", "postlog.kafka.init-timeout=5s")
			.run((context) -> assertThat(context.getBean(PostlogKafkaProperties.class).getInitTimeout())
				.isEqualTo(Duration.ofSeconds(5)));
	}

	@Test
	void formatAndCloudEventsModeBind() {
		this.runner
			.withPropertyValues("postlog.kafka.enabled=true", "postlog.kafka.format=cloudevents",
					"postlog.kafka.cloudevents.mode=structured")
			.run((context) -> {
				PostlogKafkaProperties properties = context.getBean(PostlogKafkaProperties.class);
				assertThat(properties.getFormat()).isEqualTo(RelayFormat.CLOUDEVENTS);
				assertThat(properties.getCloudevents().getMode()).isEqualTo(CloudEventsMode.STRUCTURED);
			});
		this.runner.withPropertyValues("postlog.kafka.enabled=true").run((context) -> {
			PostlogKafkaProperties properties = context.getBean(PostlogKafkaProperties.class);
			assertThat(properties.getFormat()).isEqualTo(RelayFormat.POSTLOG);
			assertThat(properties.getCloudevents().getMode()).isEqualTo(CloudEventsMode.BINARY);
		});
	}

}
