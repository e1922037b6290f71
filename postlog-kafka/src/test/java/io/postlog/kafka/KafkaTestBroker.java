package io.postlog.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A real single-node KRaft broker from spring-kafka-test for a test class, with the
 * transaction state log sized for one node, and a {@code read_committed} reader.
 */
final class KafkaTestBroker implements AutoCloseable {

	private final EmbeddedKafkaKraftBroker broker;

	private KafkaTestBroker(EmbeddedKafkaKraftBroker broker) {
		this.broker = broker;
	}

	static KafkaTestBroker start() {
		EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
		broker.brokerProperty("transaction.state.log.replication.factor", "1");
		broker.brokerProperty("transaction.state.log.min.isr", "1");
		broker.brokerProperty("offsets.topic.replication.factor", "1");
		broker.brokerProperty("auto.create.topics.enable", "true");
		broker.afterPropertiesSet();
		return new KafkaTestBroker(broker);
	}

	String bootstrapServers() {
		return this.broker.getBrokersAsString();
	}

	Map<String, Object> clientProperties() {
		return Map.of("bootstrap.servers", bootstrapServers());
	}

	void createTopic(String name, int partitions) {
		this.broker.addTopics(new NewTopic(name, Optional.of(partitions), Optional.empty()));
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
		this.broker.destroy();
	}

}
