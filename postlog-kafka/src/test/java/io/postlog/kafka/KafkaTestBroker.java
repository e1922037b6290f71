package io.postlog.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.RetryPolicy;
import io.postlog.test.PostgresDatabase;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.postgresql.ds.PGSimpleDataSource;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A real single-node KRaft broker from spring-kafka-test for a test class, with the
 * transaction state log sized for one node, and a {@code read_committed} reader. A class
 * that shares one broker among its tests registers {@link #perClass()} as a static
 * {@code @RegisterExtension} field: the broker starts before the class's first test and
 * stops after its last.
 */
final class KafkaTestBroker implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

	private @Nullable EmbeddedKafkaKraftBroker broker;

	private KafkaTestBroker(@Nullable EmbeddedKafkaKraftBroker broker) {
		this.broker = broker;
	}

	static KafkaTestBroker start() {
		return start(new EmbeddedKafkaKraftBroker(1, 1), Map.of());
	}

	/**
	 * Returns a broker that a test class registers as an extension, started as
	 * {@link #start()} starts one before the class's tests and closed after them.
	 */
	static KafkaTestBroker perClass() {
		return new KafkaTestBroker(null);
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.broker = start().broker;
	}

	@Override
	public void afterAll(ExtensionContext context) {
		close();
	}

	private EmbeddedKafkaKraftBroker broker() {
		if (this.broker == null) {
			throw new IllegalStateException("The test class's broker has not started (register it as an extension)");
		}
		return this.broker;
	}

	/**
	 * Starts a broker configured as {@link #start()} does, with more broker properties.
	 */
	static KafkaTestBroker start(EmbeddedKafkaKraftBroker broker, Map<String, String> properties) {
		broker.brokerProperty("transaction.state.log.replication.factor", "1");
		broker.brokerProperty("transaction.state.log.min.isr", "1");
		broker.brokerProperty("offsets.topic.replication.factor", "1");
		broker.brokerProperty("auto.create.topics.enable", "true");
		properties.forEach(broker::brokerProperty);
		broker.afterPropertiesSet();
		return new KafkaTestBroker(broker);
	}

	String bootstrapServers() {
		return broker().getBrokersAsString();
	}

	/**
	 * Returns the port the broker listens on for a listener, whatever it advertises.
	 */
	int boundPort(String listener) {
		return broker().getCluster()
			.brokers()
			.values()
			.iterator()
			.next()
			.boundPort(new org.apache.kafka.common.network.ListenerName(listener));
	}

	/**
	 * Returns the transactional ids the broker's coordinators know.
	 */
	java.util.Set<String> transactionalIds() {
		return broker().doWithAdminFunction((admin) -> {
			try {
				java.util.Set<String> ids = new java.util.HashSet<>();
				admin.listTransactions().all().get().forEach((listing) -> ids.add(listing.transactionalId()));
				return ids;
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not list the broker's transactions", ex);
			}
		});
	}

	/**
	 * Starts describing a relay of the given database to this broker, on a slot and a
	 * publication both named {@code slot}, with a consumer that reports its status every
	 * second and retries a failed listener ten times, quickly; the test adds its tables,
	 * topics and format.
	 */
	KafkaRelayBuilder relay(PostgresDatabase database, String slot) {
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setUrl(database.jdbcUrl());
		dataSource.setUser(database.username());
		return KafkaRelay.builder()
			.consumer(ReplicationConsumer.builder()
				.jdbcUrl(database.jdbcUrl(), database.username(), null)
				.statusInterval(Duration.ofSeconds(1))
				.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1), 10)))
			.dataSource(dataSource)
			.slotName(slot)
			.publicationName(slot)
			.kafkaProperties(clientProperties(), Map.of(), Map.of(), Map.of());
	}

	Map<String, Object> clientProperties() {
		return Map.of("bootstrap.servers", bootstrapServers());
	}

	void createTopic(String name, int partitions) {
		broker().addTopics(new NewTopic(name, Optional.of(partitions), Optional.empty()));
	}

	KafkaConsumer<byte[], byte[]> readCommitted() {
		Map<String, Object> properties = new HashMap<>();
		properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
		properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
		properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
		properties.put(ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID());
		properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
		properties.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
		return new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
	}

	/**
	 * Reads a topic from the start with a {@code read_committed} consumer until it holds
	 * {@code expected} records and nothing more arrives for a while, or the time is up.
	 */
	List<ConsumerRecord<byte[], byte[]>> readAll(String topic, long expected, Duration timeout) {
		List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
		try (KafkaConsumer<byte[], byte[]> consumer = readCommitted()) {
			List<TopicPartition> partitions = new ArrayList<>();
			long deadline = System.nanoTime() + timeout.toNanos();
			while (partitions.isEmpty() && System.nanoTime() < deadline) {
				List<PartitionInfo> infos = consumer.partitionsFor(topic);
				if (infos != null) {
					for (PartitionInfo info : infos) {
						partitions.add(new TopicPartition(topic, info.partition()));
					}
				}
			}
			consumer.assign(partitions);
			consumer.seekToBeginning(partitions);
			long quietUntil = Long.MAX_VALUE;
			while (System.nanoTime() < Math.min(deadline, quietUntil)) {
				int before = records.size();
				consumer.poll(Duration.ofMillis(200)).forEach(records::add);
				if (records.size() >= expected && records.size() == before && quietUntil == Long.MAX_VALUE) {
					// Anything beyond the expected count (a duplicate) must show too.
					quietUntil = System.nanoTime() + Duration.ofSeconds(2).toNanos();
				}
			}
		}
		return records;
	}

	@Override
	public void close() {
		if (this.broker != null) {
			this.broker.destroy();
			this.broker = null;
		}
	}

}
