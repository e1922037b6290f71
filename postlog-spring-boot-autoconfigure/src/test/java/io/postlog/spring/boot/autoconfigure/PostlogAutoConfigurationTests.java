package io.postlog.spring.boot.autoconfigure;

import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.ReconnectPolicy;
import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.spring.PostlogListenerAnnotationBeanPostProcessor;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogServerPoller;
import io.postlog.spring.PostlogStreamingMonitor;
import io.postlog.spring.boot.actuate.PostlogEndpoint;
import io.postlog.spring.boot.autoconfigure.endpoint.PostlogEndpointAutoConfiguration;
import io.postlog.spring.boot.autoconfigure.health.PostlogHealthContributorAutoConfiguration;
import io.postlog.spring.boot.autoconfigure.metrics.PostlogMetricsAutoConfiguration;
import io.postlog.spring.PgListenerErrorHandler;
import io.postlog.spring.PostlogDeadLetterErrorHandler;
import io.postlog.spring.boot.health.PostlogHealthContributor;
import io.postlog.spring.boot.metrics.PostlogMetrics;
import io.postlog.spring.boot.metrics.PostlogStreamingMetrics;
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
	void observesListenerCallsWithTheApplicationsObservationRegistry() {
		this.runner
			.withBean(io.micrometer.observation.ObservationRegistry.class,
					io.micrometer.observation.tck.TestObservationRegistry::create)
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(io.postlog.spring.PostlogListenerObservations.class)
				.hasSingleBean(io.postlog.spring.PostlogFence.class));
	}

	@Test
	void backsOffWhenDisabled() {
		this.runner.withPropertyValues("postlog.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(PostlogListenerRegistry.class)
				.doesNotHaveBean(PostlogHealthContributor.class)
				.doesNotHaveBean(PostlogMetrics.class));
	}

	@Test
	void createsRegistryHealthEndpointAndMetricsWithADataSource() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(PostlogListenerRegistry.class)
			.hasSingleBean(PostlogListenerAnnotationBeanPostProcessor.class)
			.hasBean("postlogHealthContributor")
			.hasSingleBean(PostlogEndpoint.class)
			.hasSingleBean(PostlogMetrics.class)
			.hasSingleBean(PostlogStreamingMonitor.class)
			.hasSingleBean(PostlogStreamingMetrics.class));
	}

	@Test
	void leavesOutActuatorPartsWithoutActuatorOnTheClasspath() {
		this.runner
			.withClassLoader(new FilteredClassLoader(HealthIndicator.class,
					org.springframework.boot.actuate.endpoint.annotation.Endpoint.class, MeterBinder.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(PostlogListenerRegistry.class)
				.doesNotHaveBean(PostlogHealthContributor.class)
				.doesNotHaveBean(PostlogEndpoint.class)
				.doesNotHaveBean(PostlogMetrics.class)
				.doesNotHaveBean(PostlogStreamingMetrics.class));
	}

	@Test
	void healthIndicatorCanBeDisabled() {
		this.runner.withPropertyValues("management.health.postlog.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(PostlogHealthContributor.class));
	}

	@Test
	void usesAnApplicationDataSourceWhenPostlogDatasourceUrlIsSet() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PostlogAutoConfiguration.class))
			.withUserConfiguration(OwnDataSource.class)
			.withPropertyValues("postlog.datasource.url=" + URL, "postlog.datasource.username=repl")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(PostlogListenerRegistry.class);
				PostlogConnectionDetails details = context.getBean(PostlogConnectionDetails.class);
				assertThat(details).isInstanceOf(PropertiesPostlogConnectionDetails.class);
				assertThat(details.getJdbcUrl()).isEqualTo(URL);
				assertThat(details.getUsername()).isEqualTo("repl");
			});
	}

	@Test
	void connectionDetailsDefaultToTheApplicationsJdbcConnectionDetails() {
		this.runner.withPropertyValues("spring.datasource.username=app").run((context) -> {
			PostlogConnectionDetails details = context.getBean(PostlogConnectionDetails.class);
			assertThat(details).isInstanceOf(JdbcPostlogConnectionDetails.class);
			assertThat(details.getJdbcUrl()).isEqualTo(URL);
			assertThat(details.getUsername()).isEqualTo("app");
		});
	}

	@Test
	void aConnectionDetailsBeanOfTheApplicationWins() {
		this.runner.withBean(PostlogConnectionDetails.class, () -> new PostlogConnectionDetails() {

			@Override
			public String getJdbcUrl() {
				return "jdbc:postgresql://replica/app";
			}

			@Override
			public String getUsername() {
				return "cdc";
			}

			@Override
			public String getPassword() {
				return null;
			}

		})
			.run((context) -> assertThat(context.getBean(PostlogConnectionDetails.class).getJdbcUrl())
				.isEqualTo("jdbc:postgresql://replica/app"));
	}

	@Test
	void createsTheDeadLetterHandlerOnlyWhenItIsTheDefault() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(PostlogDeadLetterErrorHandler.class));
		this.runner.withPropertyValues("postlog.listener.error-handler=skip")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(PostlogDeadLetterErrorHandler.class)
				.doesNotHaveBean(PgListenerErrorHandler.class));
	}

	@Test
	void bindsGroupsAndDerivesTheirSlotAndPublicationNames() {
		this.runner
			.withPropertyValues("postlog.groups.search.slot.name=search_slot",
					"postlog.groups.search.publication.name=search_pub", "postlog.groups.audit.slot.name=audit_slot",
					"postlog.listener.error-handler=skip")
			.run((context) -> {
				PostlogProperties properties = context.getBean(PostlogProperties.class);
				assertThat(properties.slotName("")).isEqualTo("postlog");
				assertThat(properties.publicationName("")).isEqualTo("postlog");
				assertThat(properties.slotName("search")).isEqualTo("search_slot");
				assertThat(properties.publicationName("search")).isEqualTo("search_pub");
				assertThat(properties.slotName("audit")).isEqualTo("audit_slot");
				assertThat(properties.publicationName("audit")).isEqualTo("postlog_audit");
				assertThat(properties.slotName("other")).isEqualTo("postlog_other");
				assertThat(properties.getListener().getErrorHandler()).isEqualTo(PostlogProperties.ErrorHandler.SKIP);
			});
	}

	@Test
	void disabledPostlogOnlyChecksForItsLeftoverSlots() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, PostlogAutoConfiguration.class,
					PostlogDisabledAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=" + URL, "postlog.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(PostlogDisabledNotice.class)
				.doesNotHaveBean(PostlogListenerRegistry.class));
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataSourceAutoConfiguration.class, PostlogDisabledAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=" + URL)
			.run((context) -> assertThat(context).doesNotHaveBean(PostlogDisabledNotice.class));
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
	void reconnectsWithTheirOwnBackOffAndTheServerIsReadInTheBackground() {
		this.runner
			.withPropertyValues("postlog.reconnect.initial-interval=50ms", "postlog.reconnect.multiplier=3",
					"postlog.reconnect.max-interval=2s", "postlog.retry.initial-interval=1s",
					"postlog.retry.max-interval=1m", "postlog.health.poll-interval=2s")
			.run((context) -> {
				PostlogProperties properties = context.getBean(PostlogProperties.class);
				assertThat(PostlogConsumerMapping.reconnectPolicy(properties.getReconnect()))
					.isEqualTo(new ReconnectPolicy(Duration.ofMillis(50), 3, Duration.ofSeconds(2)));
				assertThat(properties.getRetry().getMaxInterval()).isEqualTo(Duration.ofMinutes(1));
				PostlogServerPoller poller = context.getBean(PostlogServerPoller.class);
				assertThat(poller.interval()).isEqualTo(Duration.ofSeconds(2));
				assertThat(poller.isRunning()).isTrue();
			});
	}

	@Test
	void reconnectAndPollDefaultsAreTheDocumentedOnes() {
		this.runner.run((context) -> {
			PostlogProperties properties = context.getBean(PostlogProperties.class);
			assertThat(PostlogConsumerMapping.reconnectPolicy(properties.getReconnect()))
				.isEqualTo(ReconnectPolicy.DEFAULT)
				.isEqualTo(new ReconnectPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(5)));
			assertThat(context.getBean(PostlogServerPoller.class).interval()).isEqualTo(Duration.ofSeconds(5));
		});
	}

	@Test
	void bindsEveryProperty() {
		this.runner.withPropertyValues("postlog.slot.name=orders_slot", "postlog.slot.lifecycle=existing",
				"postlog.publication.name=orders_pub", "postlog.publication.mode=sync",
				"postlog.tables=orders,shop.items", "postlog.binary=false", "postlog.retry.initial-interval=1s",
				"postlog.retry.multiplier=3", "postlog.retry.max-interval=1m", "postlog.retry.max-attempts=-1",
				"postlog.status-interval=2s", "postlog.heartbeat.interval=30s", "postlog.max-transaction-changes=50",
				"postlog.health.max-lag=64MB", "postlog.datasource.url=jdbc:postgresql://db/app",
				"postlog.datasource.username=repl", "postlog.datasource.password=secret", "postlog.slot.failover=true",
				"postlog.slot.on-lost=recreate", "postlog.heartbeat.timeout=2m", "postlog.heartbeat.table=ops.beats",
				"postlog.health.max-retained=10GB", "postlog.health.max-retained-ratio=0.8",
				"postlog.streaming.enabled=true", "postlog.streaming.memory=64MB",
				"postlog.streaming.spill-directory=/var/lib/app/spill", "postlog.streaming.max-spill=2GB",
				"postlog.decoder=wal2json", "postlog.wal2json.allow-insert-only-tables=true",
				"postlog.wal2json.numbers-as-strings=true", "postlog.wal2json.allow-non-finite-as-null=true",
				"postlog.pglogical.replication-sets=orders,audit")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(PostlogHeartbeat.class);
				assertThat(context.getBean(HeartbeatTracker.class).slotName()).isEqualTo("orders_slot");
				assertThat(context.getBean(HeartbeatTracker.class).status(java.time.Instant.now()).timeout())
					.isEqualTo(Duration.ofMinutes(2));
				PostlogProperties properties = context.getBean(PostlogProperties.class);
				assertThat(properties.getSlot().getName()).isEqualTo("orders_slot");
				assertThat(properties.getSlot().getLifecycle()).isEqualTo(SlotLifecycle.EXISTING);
				assertThat(properties.getPublication().getName()).isEqualTo("orders_pub");
				assertThat(properties.getPublication().getMode()).isEqualTo(PublicationMode.SYNC);
				assertThat(properties.getTables()).containsExactly("orders", "shop.items");
				assertThat(properties.getBinary()).isFalse();
				assertThat(properties.getRetry().getInitialInterval()).isEqualTo(Duration.ofSeconds(1));
				assertThat(properties.getRetry().getMultiplier()).isEqualTo(3);
				assertThat(properties.getRetry().getMaxInterval()).isEqualTo(Duration.ofMinutes(1));
				assertThat(properties.getRetry().getMaxAttempts()).isEqualTo(-1);
				assertThat(properties.getStatusInterval()).isEqualTo(Duration.ofSeconds(2));
				assertThat(properties.getHeartbeat().getInterval()).isEqualTo(Duration.ofSeconds(30));
				assertThat(properties.getMaxTransactionChanges()).isEqualTo(50);
				assertThat(properties.getHealth().getMaxLag()).isEqualTo(DataSize.ofMegabytes(64));
				assertThat(properties.getDatasource().getUsername()).isEqualTo("repl");
				assertThat(properties.getSlot().isFailover()).isTrue();
				assertThat(properties.getSlot().getOnLost()).isEqualTo(LostSlotAction.RECREATE);
				assertThat(properties.getHeartbeat().getTimeout()).isEqualTo(Duration.ofMinutes(2));
				assertThat(properties.getHeartbeat().getTable()).isEqualTo("ops.beats");
				assertThat(properties.getHealth().getMaxRetained()).isEqualTo(DataSize.ofGigabytes(10));
				assertThat(properties.getHealth().getMaxRetainedRatio()).isEqualTo(0.8);
				assertThat(properties.getStreaming().isEnabled()).isTrue();
				assertThat(properties.getStreaming().getMemory()).isEqualTo(DataSize.ofMegabytes(64));
				assertThat(properties.getStreaming().getSpillDirectory()).isEqualTo(Path.of("/var/lib/app/spill"));
				assertThat(properties.getStreaming().getMaxSpill()).isEqualTo(DataSize.ofGigabytes(2));
				assertThat(properties.getDecoder()).isEqualTo(PostlogProperties.Decoder.WAL2JSON);
				assertThat(properties.getWal2json().isAllowInsertOnlyTables()).isTrue();
				assertThat(properties.getWal2json().isNumbersAsStrings()).isTrue();
				assertThat(properties.getWal2json().isAllowNonFiniteAsNull()).isTrue();
				assertThat(properties.getPglogical().getReplicationSets()).containsExactly("orders", "audit");
				assertThat(context.getBean(PostlogStreamingMonitor.class).enabled()).isTrue();
			});
	}

	@Test
	void heartbeatTimeoutDefaultsToFiveIntervals() {
		this.runner.withPropertyValues("postlog.heartbeat.interval=30s")
			.run((context) -> assertThat(
					context.getBean(HeartbeatTracker.class).status(java.time.Instant.now()).timeout())
				.isEqualTo(Duration.ofMinutes(2).plusSeconds(30)));
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
			assertThat(properties.getBinary()).as("the decoder's default").isNull();
			assertThat(properties.getWal2json().isAllowInsertOnlyTables()).isFalse();
			assertThat(properties.getWal2json().isNumbersAsStrings()).isFalse();
			assertThat(properties.getWal2json().isAllowNonFiniteAsNull()).isFalse();
			assertThat(properties.getPglogical().getReplicationSets()).containsExactly("default");
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
			assertThat(properties.getListener().getErrorHandler()).isEqualTo(PostlogProperties.ErrorHandler.STOP);
			assertThat(properties.getGroups()).isEmpty();
			assertThat(properties.getSlot().isFailover()).isFalse();
			assertThat(properties.getSlot().getOnLost()).isEqualTo(LostSlotAction.FAIL);
			assertThat(properties.getHeartbeat().getTimeout()).isNull();
			assertThat(properties.getHeartbeat().getTable()).isEqualTo("postlog_heartbeat");
			assertThat(properties.getHealth().getMaxRetained()).isNull();
			assertThat(properties.getHealth().getMaxRetainedRatio()).isEqualTo(0.5);
			assertThat(properties.getStreaming().isEnabled()).isFalse();
			assertThat(properties.getStreaming().getMemory()).isEqualTo(DataSize.ofMegabytes(16));
			assertThat(properties.getStreaming().getSpillDirectory()).isNull();
			assertThat(properties.getStreaming().getMaxSpill()).isEqualTo(DataSize.ofGigabytes(10));
			assertThat(context.getBean(PostlogStreamingMonitor.class).enabled()).isFalse();
			assertThat(context).doesNotHaveBean(PostlogHeartbeat.class).doesNotHaveBean(HeartbeatTracker.class);
		});
	}

	@Test
	void bindsTheSnapshotProperties() {
		this.runner
			.withPropertyValues("postlog.snapshot.mode=initial", "postlog.snapshot.parallelism=4",
					"postlog.snapshot.chunk-size=50000", "postlog.snapshot.marker-table=ops.snapshots")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				PostlogSnapshotProperties snapshot = context.getBean(PostlogProperties.class).getSnapshot();
				assertThat(snapshot.getMode()).isEqualTo(PostlogProperties.SnapshotMode.INITIAL);
				assertThat(snapshot.getParallelism()).isEqualTo(4);
				assertThat(snapshot.getChunkSize()).isEqualTo(50_000);
				assertThat(snapshot.getMarkerTable()).isEqualTo("ops.snapshots");
				assertThat(snapshot.backfillsNewTables()).isTrue();
			});
		this.runner
			.withPropertyValues("postlog.snapshot.new-tables=backfill", "postlog.snapshot.watermark-table=ops.marks")
			.run((context) -> {
				PostlogSnapshotProperties snapshot = context.getBean(PostlogProperties.class).getSnapshot();
				assertThat(snapshot.backfillsNewTables()).isTrue();
				assertThat(snapshot.getWatermarkTable()).isEqualTo("ops.marks");
			});
		this.runner.run((context) -> {
			PostlogSnapshotProperties snapshot = context.getBean(PostlogProperties.class).getSnapshot();
			assertThat(snapshot.getParallelism()).isEqualTo(2);
			assertThat(snapshot.getChunkSize()).isEqualTo(100_000);
			assertThat(snapshot.getMarkerTable()).isEqualTo("postlog_snapshot");
			assertThat(snapshot.backfillsNewTables()).isFalse();
			assertThat(snapshot.getWatermarkTable()).isEqualTo("postlog_watermark");
		});
	}

	@Test
	void refusesSnapshotSettingsItCannotServe() {
		Map<String, String> refusals = Map.of("postlog.snapshot.parallelism=0", "1 to 64",
				"postlog.snapshot.parallelism=65", "1 to 64", "postlog.snapshot.chunk-size=0", "at least 1 row",
				"postlog.slot.lifecycle=temporary", "temporary slot ends with it", "postlog.slot.failover=true",
				"cannot fail over yet", "postlog.decoder=wal2json", "pgoutput plugin only");
		refusals
			.forEach((property, message) -> this.runner.withPropertyValues("postlog.snapshot.mode=initial", property)
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.isInstanceOf(InvalidConfigurationPropertyValueException.class)
					.hasMessageContaining(property.startsWith("postlog.snapshot.")
							? property.substring(0, property.indexOf('=')) : "postlog.snapshot.mode")
					.hasMessageContaining(message)));
	}

	@Test
	void acceptsAnInitialSnapshotWithTheJdbcCheckpointStore() {
		this.runner.withPropertyValues("postlog.snapshot.mode=initial", "postlog.checkpoint.store=jdbc")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(PostlogConsumerMapping.backfills(context.getBean(PostlogProperties.class))).isTrue();
			});
	}

	@Test
	void bindsTheCheckpointProperties() {
		this.runner
			.withPropertyValues("postlog.checkpoint.store=jdbc", "postlog.checkpoint.table=sink.checkpoints",
					"postlog.checkpoint.create-table=false", "postlog.checkpoint.batch-transactions=100",
					"postlog.checkpoint.batch-max-delay=250ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				PostlogCheckpointProperties checkpoint = context.getBean(PostlogProperties.class).getCheckpoint();
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
			PostlogCheckpointProperties checkpoint = context.getBean(PostlogProperties.class).getCheckpoint();
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
				"postlog.checkpoint.batch-transactions", "postlog.checkpoint.batch-max-delay", "postlog.slot.failover",
				"postlog.slot.on-lost", "postlog.heartbeat.timeout", "postlog.heartbeat.table",
				"postlog.health.max-retained", "postlog.health.max-retained-ratio", "postlog.streaming.enabled",
				"postlog.streaming.memory", "postlog.streaming.spill-directory", "postlog.streaming.max-spill",
				"postlog.listener.error-handler", "postlog.groups", "postlog.wal2json.allow-insert-only-tables",
				"postlog.wal2json.numbers-as-strings", "postlog.wal2json.allow-non-finite-as-null",
				"postlog.pglogical.replication-sets", "postlog.snapshot.parallelism", "postlog.snapshot.chunk-size",
				"postlog.snapshot.marker-table", "postlog.snapshot.new-tables", "postlog.snapshot.watermark-table",
				"postlog.reconnect.initial-interval", "postlog.reconnect.multiplier", "postlog.reconnect.max-interval",
				"postlog.health.poll-interval");
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
					"postlog.checkpoint.store", "postlog.slot.on-lost", "postlog.listener.error-handler",
					"postlog.snapshot.new-tables");
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnDataSource {

		@Bean
		DataSource dataSource() {
			return new SimpleDriverDataSource(new org.postgresql.Driver(), URL);
		}

	}

}
