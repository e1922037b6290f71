package io.postlog.benchmarks.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A single-node embedded KRaft broker in the leg's JVM, and a {@code read_committed}
 * reader thread.
 */
final class BenchBroker implements AutoCloseable {

	private final EmbeddedKafkaKraftBroker broker;

	private BenchBroker(EmbeddedKafkaKraftBroker broker) {
		this.broker = broker;
	}

	static BenchBroker start() {
		EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
		broker.brokerProperty("transaction.state.log.replication.factor", "1");
		broker.brokerProperty("transaction.state.log.min.isr", "1");
		broker.brokerProperty("offsets.topic.replication.factor", "1");
		broker.afterPropertiesSet();
		return new BenchBroker(broker);
	}

	String servers() {
		return this.broker.getBrokersAsString();
	}

	void topic(String name, int partitions) {
		this.broker.addTopics(new NewTopic(name, Optional.of(partitions), Optional.empty()));
	}

	/**
	 * Reads a topic from its start with {@code read_committed} on a thread of its own
	 * until {@code stop} says so.
	 */
	Thread read(String topic, Consumer<ConsumerRecord<byte[], byte[]>> each, java.util.function.BooleanSupplier stop) {
		Thread thread = new Thread(() -> {
			Map<String, Object> properties = Map.of("bootstrap.servers", servers(), "isolation.level",
					"read_committed", "enable.auto.commit", false, "max.poll.records", 10_000, "fetch.max.wait.ms",
					50);
			try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(),
					new ByteArrayDeserializer())) {
				List<TopicPartition> partitions = new ArrayList<>();
				for (PartitionInfo info : consumer.partitionsFor(topic)) {
					partitions.add(new TopicPartition(topic, info.partition()));
				}
				consumer.assign(partitions);
				consumer.seekToBeginning(partitions);
				while (!stop.getAsBoolean()) {
					consumer.poll(Duration.ofMillis(100)).forEach(each);
				}
			}
		}, "bench-kafka-reader");
		thread.setDaemon(true);
		thread.start();
		return thread;
	}

	@Override
	public void close() {
		this.broker.destroy();
	}

}
