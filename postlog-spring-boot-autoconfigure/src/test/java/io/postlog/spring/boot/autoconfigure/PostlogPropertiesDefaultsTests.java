package io.postlog.spring.boot.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;

import io.postlog.TableId;
import io.postlog.consumer.CheckpointStore;
import io.postlog.consumer.checkpoint.CheckpointTable;
import io.postlog.consumer.ConsumerListener;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.heartbeat.HeartbeatWriter;
import io.postlog.spring.PostlogConsumerGroup;
import io.postlog.types.ValueDecoders;
import org.junit.jupiter.api.Test;

import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.convert.DurationStyle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every default of {@link PostlogProperties} that reaches the consumer equals core's
 * default, as Spring Boot's {@code defaultValuesAreConsistent} tests do: the properties
 * keep their defaults as literals (the configuration metadata reads them from the
 * source), and this test keeps them equal to the builder's.
 */
class PostlogPropertiesDefaultsTests {

	@Test
	void defaultValuesAreConsistentWithTheConsumerBuilder() {
		PostlogProperties properties = new PostlogProperties();
		ReplicationConsumer.Builder mapped = PostlogConsumerMapping.map(properties, PostlogConsumerGroup.DEFAULT,
				ReplicationConsumer.builder());
		// Backfills are on by default in Spring and off in core; with them on, their
		// watermark table, queue bound and new-table rule are compared.
		assertThat(PostlogConsumerMapping.backfills(properties)).isTrue();
		assertThat(mapped).usingRecursiveComparison()
			.ignoringFields("backfillChunkSize")
			.ignoringFieldsOfTypes(ConsumerListener.class, ValueDecoders.class, CheckpointStore.class)
			.isEqualTo(ReplicationConsumer.builder());
	}

	@Test
	void snapshotDefaultsAreConsistentWithTheConsumerBuilder() {
		PostlogProperties properties = new PostlogProperties();
		properties.getSnapshot().setMode(PostlogProperties.SnapshotMode.INITIAL);
		ReplicationConsumer.Builder mapped = PostlogConsumerMapping.map(properties, PostlogConsumerGroup.DEFAULT,
				ReplicationConsumer.builder());
		// The snapshot's parallelism, chunk size and marker table are compared; that it
		// is on, and that it backfills new tables, follow from the mode.
		assertThat(mapped).usingRecursiveComparison()
			.ignoringFields("initialSnapshot", "backfillChunkSize", "backfillNewTables")
			.ignoringFieldsOfTypes(ConsumerListener.class, ValueDecoders.class, CheckpointStore.class)
			.isEqualTo(ReplicationConsumer.builder());
	}

	@Test
	void checkpointBatchDefaultsAreConsistentWithTheConsumerBuilder() {
		PostlogProperties properties = new PostlogProperties();
		properties.getCheckpoint().setStore(PostlogProperties.CheckpointStore.JDBC);
		ReplicationConsumer.Builder mapped = PostlogConsumerMapping.map(properties, PostlogConsumerGroup.DEFAULT,
				ReplicationConsumer.builder());
		// Boot turns backfills on for every pgoutput group, jdbc store or not.
		assertThat(mapped).usingRecursiveComparison()
			.ignoringFields("backfillChunkSize")
			.ignoringFieldsOfTypes(ConsumerListener.class, ValueDecoders.class, CheckpointStore.class)
			.isEqualTo(ReplicationConsumer.builder());
	}

	@Test
	void tableNameDefaultsAreCores() {
		PostlogProperties properties = new PostlogProperties();
		assertThat(properties.getCheckpoint().getTable()).isEqualTo(CheckpointTable.DEFAULT_NAME);
		assertThat(TableId.parse(properties.getHeartbeat().getTable())).isEqualTo(HeartbeatWriter.DEFAULT_TABLE);
	}

	@Test
	void backOffDefaultsInTheMetadataAreTheProperties() throws IOException {
		// The back-off groups give their defaults to a shared base class's constructor,
		// which Boot's metadata processor cannot read: the metadata states them by hand.
		Map<String, ConfigurationMetadataProperty> metadata;
		try (InputStream json = getClass().getClassLoader()
			.getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
			metadata = ConfigurationMetadataRepositoryJsonBuilder.create(json).build().getAllProperties();
		}
		assertBackOffDefaults(metadata, "postlog.retry", new PostlogRetryProperties());
		assertBackOffDefaults(metadata, "postlog.reconnect", new PostlogReconnectProperties());
		assertThat(metadata.get("postlog.retry.max-attempts").getDefaultValue()).isEqualTo(10);
	}

	private static void assertBackOffDefaults(Map<String, ConfigurationMetadataProperty> metadata, String prefix,
			PostlogBackOffProperties properties) {
		assertThat(duration(metadata, prefix + ".initial-interval")).isEqualTo(properties.getInitialInterval());
		assertThat(((Number) metadata.get(prefix + ".multiplier").getDefaultValue()).doubleValue())
			.isEqualTo(properties.getMultiplier());
		assertThat(duration(metadata, prefix + ".max-interval")).isEqualTo(properties.getMaxInterval());
		assertThat(metadata.get(prefix + ".initial-interval").getDescription()).isNotBlank();
	}

	private static Duration duration(Map<String, ConfigurationMetadataProperty> metadata, String name) {
		return DurationStyle.detectAndParse((String) metadata.get(name).getDefaultValue());
	}

}
