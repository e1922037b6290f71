package io.postlog.spring.boot.autoconfigure;

import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.spring.PostlogListenerAnnotationBeanPostProcessor;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.boot.actuate.PostlogEndpoint;
import io.postlog.spring.boot.autoconfigure.endpoint.PostlogEndpointAutoConfiguration;
import io.postlog.spring.boot.autoconfigure.health.PostlogHealthContributorAutoConfiguration;
import io.postlog.spring.boot.autoconfigure.metrics.PostlogMetricsAutoConfiguration;
import io.postlog.spring.boot.health.PostlogHealthIndicator;
import io.postlog.spring.boot.metrics.PostlogMetrics;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

class PostlogAutoConfigurationTests {

	private static final String URL = "jdbc:postgresql://127.0.0.1:1/none";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, PostlogAutoConfiguration.class,
				PostlogHealthContributorAutoConfiguration.class, PostlogEndpointAutoConfiguration.class,
				PostlogMetricsAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + URL, "management.endpoints.web.exposure.include=postlog");

	@Test
	void backsOffWithoutDataSource() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PostlogAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(PostlogListenerRegistry.class)
				.doesNotHaveBean(PostlogListenerAnnotationBeanPostProcessor.class));
	}

	@Test
	void backsOffWhenDisabled() {
		this.runner.withPropertyValues("postlog.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(PostlogListenerRegistry.class)
				.doesNotHaveBean(PostlogHealthIndicator.class)
				.doesNotHaveBean(PostlogMetrics.class));
	}

	@Test
	void createsRegistryHealthEndpointAndMetricsWithADataSource() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(PostlogListenerRegistry.class)
			.hasSingleBean(PostlogListenerAnnotationBeanPostProcessor.class)
			.hasBean("postlogHealthIndicator")
			.hasSingleBean(PostlogEndpoint.class)
			.hasSingleBean(PostlogMetrics.class));
	}

	@Test
	void leavesOutActuatorPartsWithoutActuatorOnTheClasspath() {
		this.runner
			.withClassLoader(new FilteredClassLoader(HealthIndicator.class,
					org.springframework.boot.actuate.endpoint.annotation.Endpoint.class, MeterBinder.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(PostlogListenerRegistry.class)
				.doesNotHaveBean(PostlogHealthIndicator.class)
				.doesNotHaveBean(PostlogEndpoint.class)
				.doesNotHaveBean(PostlogMetrics.class));
	}

	@Test
	void healthIndicatorCanBeDisabled() {
		this.runner.withPropertyValues("management.health.postlog.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(PostlogHealthIndicator.class));
	}

	@Test
	void usesAnApplicationDataSourceWhenPostlogDatasourceUrlIsSet() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PostlogAutoConfiguration.class))
			.withUserConfiguration(OwnDataSource.class)
			.withPropertyValues("postlog.datasource.url=" + URL)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(PostlogListenerRegistry.class));
	}

	@Test
	void failsClearlyWithoutConnectionDetailsOrPostlogDatasourceUrl() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PostlogAutoConfiguration.class))
			.withUserConfiguration(OwnDataSource.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("postlog.datasource.url"));
	}

	@Test
	void bindsEveryProperty() {
		this.runner.withPropertyValues("postlog.slot.name=orders_slot", "postlog.slot.lifecycle=existing",
				"postlog.publication.name=orders_pub", "postlog.publication.mode=sync",
				"postlog.tables=orders,shop.items", "postlog.binary=false", "postlog.retry.initial-interval=1s",
				"postlog.retry.multiplier=3", "postlog.retry.max-interval=1m", "postlog.retry.max-attempts=-1",
				"postlog.status-interval=2s", "postlog.heartbeat.interval=30s", "postlog.max-transaction-changes=50",
				"postlog.health.max-lag=64MB", "postlog.datasource.url=jdbc:postgresql://db/app",
				"postlog.datasource.username=repl", "postlog.datasource.password=secret")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(PostlogHeartbeat.class);
				PostlogProperties properties = context.getBean(PostlogProperties.class);
				assertThat(properties.getSlot().getName()).isEqualTo("orders_slot");
				assertThat(properties.getSlot().getLifecycle()).isEqualTo(SlotLifecycle.EXISTING);
				assertThat(properties.getPublication().getName()).isEqualTo("orders_pub");
				assertThat(properties.getPublication().getMode()).isEqualTo(PublicationMode.SYNC);
				assertThat(properties.getTables()).containsExactly("orders", "shop.items");
				assertThat(properties.isBinary()).isFalse();
				assertThat(properties.getRetry().getInitialInterval()).isEqualTo(Duration.ofSeconds(1));
				assertThat(properties.getRetry().getMultiplier()).isEqualTo(3);
				assertThat(properties.getRetry().getMaxInterval()).isEqualTo(Duration.ofMinutes(1));
				assertThat(properties.getRetry().getMaxAttempts()).isEqualTo(-1);
				assertThat(properties.getStatusInterval()).isEqualTo(Duration.ofSeconds(2));
				assertThat(properties.getHeartbeat().getInterval()).isEqualTo(Duration.ofSeconds(30));
				assertThat(properties.getMaxTransactionChanges()).isEqualTo(50);
				assertThat(properties.getHealth().getMaxLag()).isEqualTo(DataSize.ofMegabytes(64));
				assertThat(properties.getDatasource().getUsername()).isEqualTo("repl");
			});
	}

	@Test
	void hasTheDocumentedDefaults() {
		this.runner.run((context) -> {
			PostlogProperties properties = context.getBean(PostlogProperties.class);
			assertThat(properties.isEnabled()).isTrue();
			assertThat(properties.getSlot().getName()).isEqualTo("postlog");
			assertThat(properties.getSlot().getLifecycle()).isEqualTo(SlotLifecycle.CREATE_IF_MISSING);
			assertThat(properties.getPublication().getName()).isEqualTo("postlog");
			assertThat(properties.getPublication().getMode()).isEqualTo(PublicationMode.CREATE_IF_MISSING);
			assertThat(properties.getDecoder()).isEqualTo(PostlogProperties.Decoder.PGOUTPUT);
			assertThat(properties.isBinary()).isTrue();
			assertThat(properties.getSnapshot().getMode()).isEqualTo(PostlogProperties.SnapshotMode.NEVER);
			assertThat(properties.getRetry().getInitialInterval()).isEqualTo(Duration.ofMillis(500));
			assertThat(properties.getRetry().getMultiplier()).isEqualTo(2);
			assertThat(properties.getRetry().getMaxInterval()).isEqualTo(Duration.ofSeconds(30));
			assertThat(properties.getRetry().getMaxAttempts()).isEqualTo(10);
			assertThat(properties.getStatusInterval()).isEqualTo(Duration.ofSeconds(10));
			assertThat(properties.getHeartbeat().getInterval()).isNull();
			assertThat(properties.getMaxTransactionChanges()).isEqualTo(100_000);
			assertThat(properties.getHealth().getMaxLag()).isNull();
			assertThat(properties.getCheckpoint().getStore()).isEqualTo(PostlogProperties.CheckpointStore.SLOT);
			assertThat(context).doesNotHaveBean(PostlogHeartbeat.class);
		});
	}

	@Test
	void refusesDecodersAndSnapshotsNotSupportedYet() {
		for (String property : List.of("postlog.decoder=wal2json", "postlog.decoder=pglogical",
				"postlog.snapshot.mode=initial")) {
			this.runner.withPropertyValues(property)
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.isInstanceOf(InvalidConfigurationPropertyValueException.class)
					.hasMessageContaining(property.substring(0, property.indexOf('=')))
					.hasMessageContaining("not supported"));
		}
	}

	@Test
	void bindsTheCheckpointProperties() {
		this.runner
			.withPropertyValues("postlog.checkpoint.store=jdbc", "postlog.checkpoint.table=sink.checkpoints",
					"postlog.checkpoint.create-table=false", "postlog.checkpoint.batch-transactions=100",
					"postlog.checkpoint.batch-max-delay=250ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				PostlogProperties.Checkpoint checkpoint = context.getBean(PostlogProperties.class).getCheckpoint();
				assertThat(checkpoint.getStore()).isEqualTo(PostlogProperties.CheckpointStore.JDBC);
				assertThat(checkpoint.getTable()).isEqualTo("sink.checkpoints");
				assertThat(checkpoint.isCreateTable()).isFalse();
				assertThat(checkpoint.getBatchTransactions()).isEqualTo(100);
				assertThat(checkpoint.getBatchMaxDelay()).isEqualTo(Duration.ofMillis(250));
			});
	}

	@Test
	void checkpointDefaultsToTheSlotWithAOneTransactionBatch() {
		this.runner.run((context) -> {
			PostlogProperties.Checkpoint checkpoint = context.getBean(PostlogProperties.class).getCheckpoint();
			assertThat(checkpoint.getStore()).isEqualTo(PostlogProperties.CheckpointStore.SLOT);
			assertThat(checkpoint.getTable()).isEqualTo("postlog_checkpoint");
			assertThat(checkpoint.isCreateTable()).isTrue();
			assertThat(checkpoint.getBatchTransactions()).isEqualTo(1);
			assertThat(checkpoint.getBatchMaxDelay()).isEqualTo(Duration.ofMillis(100));
		});
	}

	@Test
	void refusesAnEmptyCheckpointBatch() {
		for (String property : List.of("postlog.checkpoint.batch-transactions=0",
				"postlog.checkpoint.batch-max-delay=0s")) {
			this.runner.withPropertyValues("postlog.checkpoint.store=jdbc", property)
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.isInstanceOf(InvalidConfigurationPropertyValueException.class)
					.hasMessageContaining(property.substring(0, property.indexOf('='))));
		}
	}

	@Test
	@SuppressWarnings("unchecked")
	void publishesConfigurationMetadataWithDescriptionsAndEnumHints() throws Exception {
		Map<String, Object> metadata;
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			metadata = JsonMapper.builder().build().readValue(in, Map.class);
		}
		List<Map<String, Object>> properties = (List<Map<String, Object>>) metadata.get("properties");
		List<String> names = properties.stream().map((p) -> (String) p.get("name")).toList();
		assertThat(names).contains("postlog.enabled", "postlog.slot.name", "postlog.slot.lifecycle",
				"postlog.publication.name", "postlog.publication.mode", "postlog.tables", "postlog.decoder",
				"postlog.binary", "postlog.snapshot.mode", "postlog.retry.initial-interval", "postlog.retry.multiplier",
				"postlog.retry.max-interval", "postlog.retry.max-attempts", "postlog.status-interval",
				"postlog.heartbeat.interval", "postlog.max-transaction-changes", "postlog.health.max-lag",
				"postlog.datasource.url", "postlog.datasource.username", "postlog.datasource.password",
				"postlog.checkpoint.store", "postlog.checkpoint.table", "postlog.checkpoint.create-table",
				"postlog.checkpoint.batch-transactions", "postlog.checkpoint.batch-max-delay");
		assertThat(properties).filteredOn((p) -> ((String) p.get("name")).startsWith("postlog."))
			.allSatisfy((p) -> assertThat(p.get("description")).as((String) p.get("name")).isNotNull());
		List<Map<String, Object>> hints = (List<Map<String, Object>>) metadata.get("hints");
		Map<String, Object> lifecycle = hints.stream()
			.filter((h) -> "postlog.slot.lifecycle".equals(h.get("name")))
			.findFirst()
			.orElseThrow();
		assertThat((List<Map<String, Object>>) lifecycle.get("values")).extracting((v) -> v.get("value"))
			.containsExactly("existing", "create-if-missing", "temporary", "owned");
		assertThat(hints).extracting((h) -> h.get("name"))
			.contains("postlog.publication.mode", "postlog.decoder", "postlog.snapshot.mode",
					"postlog.checkpoint.store");
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnDataSource {

		@Bean
		DataSource dataSource() {
			return new SimpleDriverDataSource(new org.postgresql.Driver(), URL);
		}

	}

}
