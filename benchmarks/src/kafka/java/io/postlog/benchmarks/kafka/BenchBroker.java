package io.postlog.benchmarks.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.postlog.benchmarks.e2e.Tally;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A single-node embedded KRaft broker, in the leg's JVM ({@link #start()}) or in a process
 * of its own ({@link #connect(String)}, {@link BenchBrokerProcess}), and a
 * {@code read_committed} reader thread.
 */
final class BenchBroker implements AutoCloseable {

	private final @Nullable EmbeddedKafkaKraftBroker broker;

	private final String servers;

	private BenchBroker(@Nullable EmbeddedKafkaKraftBroker broker, String servers) {
		this.broker = broker;
		this.servers = servers;
	}

	/**
	 * Returns the broker of a leg: the one {@code kafka=} names (a
	 * {@link BenchBrokerProcess}), else one started in this JVM.
	 */
	static BenchBroker of(String[] args) {
		String servers = Tally.arg(args, "kafka", "");
		return servers.isEmpty() ? start() : connect(servers);
	}

	/** A broker running elsewhere: topics are made through an admin client. */
	static BenchBroker connect(String servers) {
		return new BenchBroker(null, servers);
	}

	static BenchBroker start() {
		EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
		broker.brokerProperty("transaction.state.log.replication.factor", "1");
		broker.brokerProperty("transaction.state.log.min.isr", "1");
		broker.brokerProperty("offsets.topic.replication.factor", "1");
		broker.afterPropertiesSet();
		return new BenchBroker(broker, broker.getBrokersAsString());
	}

	String servers() {
		return this.servers;
	}

	void topic(String name, int partitions) {
		NewTopic topic = new NewTopic(name, Optional.of(partitions), Optional.empty());
		if (this.broker != null) {
			this.broker.addTopics(topic);
			return;
		}
		try (Admin admin = Admin.create(Map.of("bootstrap.servers", this.servers))) {
			admin.createTopics(List.of(topic)).all().get(1, TimeUnit.MINUTES);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while creating topic " + name, ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new IllegalStateException("Cannot create topic " + name, ex);
		}
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
		if (this.broker != null) {
			this.broker.destroy();
		}
	}

}
