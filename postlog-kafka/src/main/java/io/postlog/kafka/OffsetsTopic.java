package io.postlog.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.postlog.Lsn;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The offsets topic: one record per relayed Kafka transaction, keyed by slot name, whose
 * value holds the commit LSN of the last source transaction in it. The topic is
 * compacted, so the latest record of each slot is kept. Reading is done with a
 * {@code read_committed} consumer from the end backwards, so that only committed
 * positions count and a long uncompacted tail costs little. Not thread-safe.
 */
final class OffsetsTopic {

	private static final Logger logger = LoggerFactory.getLogger(OffsetsTopic.class);

	private static final int FIRST_WINDOW = 64;

	private final String topic;

	private final String slotName;

	private final byte[] key;

	private final Supplier<Consumer<byte[], byte[]>> consumers;

	private final Duration timeout;

	OffsetsTopic(String topic, String slotName, Supplier<Consumer<byte[], byte[]>> consumers, Duration timeout) {
		this.topic = TopicNames.require(topic, "postlog.kafka.offsets-topic");
		this.slotName = slotName;
		this.key = slotName.getBytes(StandardCharsets.UTF_8);
		this.consumers = consumers;
		this.timeout = timeout;
	}

	String name() {
		return this.topic;
	}

	/**
	 * Creates the topic, compacted with one partition, unless it exists.
	 * @param admin an admin client
	 * @throws KafkaRelayException if the topic can be neither found nor created
	 */
	void ensure(Admin admin) {
		NewTopic topic = new NewTopic(this.topic, Optional.of(1), Optional.empty())
			.configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
		try {
			admin.createTopics(List.of(topic)).all().get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
			logger.info("Created the compacted offsets topic {}", this.topic);
		}
		catch (ExecutionException ex) {
			if (!(ex.getCause() instanceof TopicExistsException)) {
				throw new KafkaRelayException("Could not create the offsets topic " + this.topic, ex.getCause());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new KafkaRelayException("Interrupted while creating the offsets topic " + this.topic, ex);
		}
		catch (java.util.concurrent.TimeoutException ex) {
			throw new KafkaRelayException(
					"Could not create the offsets topic " + this.topic + " within " + this.timeout.toMillis() + " ms",
					ex);
		}
	}

	/**
	 * Returns the record that moves the slot's relayed position to a commit LSN.
	 * @param commitLsn the commit LSN of the last source transaction relayed
	 * @return the record
	 */
	ProducerRecord<byte[], byte[]> record(Lsn commitLsn) {
		String value = "{\"slot\":" + quoted(this.slotName) + ",\"commitLsn\":\"" + commitLsn + "\"}";
		return new ProducerRecord<>(this.topic, null, this.key, value.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Reads the slot's latest committed position.
	 * @return the commit LSN, or {@link Lsn#INVALID} when the slot has none
	 * @throws KafkaRelayException if the topic cannot be read in time
	 */
	Lsn read() {
		long deadline = System.nanoTime() + this.timeout.toNanos();
		try (Consumer<byte[], byte[]> consumer = this.consumers.get()) {
			List<PartitionInfo> partitions = consumer.partitionsFor(this.topic, this.timeout);
			if (partitions == null || partitions.isEmpty()) {
				throw new KafkaRelayException("The offsets topic " + this.topic + " does not exist", null);
			}
			List<TopicPartition> assigned = new ArrayList<>();
			for (PartitionInfo partition : partitions) {
				assigned.add(new TopicPartition(this.topic, partition.partition()));
			}
			consumer.assign(assigned);
			Map<TopicPartition, Long> beginnings = consumer.beginningOffsets(assigned, this.timeout);
			// With read_committed, the end is the last stable offset: nothing of an open
			// transaction counts.
			Map<TopicPartition, Long> ends = consumer.endOffsets(assigned, this.timeout);
			Lsn latest = Lsn.INVALID;
			for (TopicPartition partition : assigned) {
				Lsn found = latest(consumer, partition, beginnings.get(partition), ends.get(partition), deadline);
				if (found.isAfter(latest)) {
					latest = found;
				}
			}
			return latest;
		}
		catch (KafkaException ex) {
			throw new KafkaRelayException("Could not read the offsets topic " + this.topic, ex);
		}
	}

	private Lsn latest(Consumer<byte[], byte[]> consumer, TopicPartition partition, long beginning, long end,
			long deadline) {
		long window = FIRST_WINDOW;
		long to = end;
		while (to > beginning) {
			long from = Math.max(beginning, to - window);
			Lsn found = scan(consumer, partition, from, to, deadline);
			if (found.isValid()) {
				return found;
			}
			to = from;
			window *= 2;
		}
		return Lsn.INVALID;
	}

	/**
	 * Returns the position of the last record of the slot in {@code [from, to)}.
	 */
	private Lsn scan(Consumer<byte[], byte[]> consumer, TopicPartition partition, long from, long to, long deadline) {
		consumer.seek(partition, from);
		Lsn found = Lsn.INVALID;
		while (consumer.position(partition, this.timeout) < to) {
			if (System.nanoTime() > deadline) {
				throw new KafkaRelayException(
						"Could not read the offsets topic " + this.topic + " within " + this.timeout.toMillis() + " ms",
						null);
			}
			for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200)).records(partition)) {
				if (record.offset() < to && Arrays.equals(record.key(), this.key)) {
					Lsn lsn = parse(record);
					if (lsn != null) {
						found = lsn;
					}
				}
			}
		}
		return found;
	}

	private @Nullable Lsn parse(ConsumerRecord<byte[], byte[]> record) {
		if (record.value() == null) {
			return null;
		}
		try {
			JsonNode node = ChangeJson.mapper().readTree(record.value());
			JsonNode lsn = node.get("commitLsn");
			if (lsn != null && lsn.isString()) {
				return Lsn.parse(lsn.stringValue());
			}
		}
		catch (JacksonException | IllegalArgumentException ex) {
			// A record this relay cannot have written.
			logger.warn("Ignoring the record at offset {} of {} for slot {}: it is not a commit LSN record ({})",
					record.offset(), record.topic() + "-" + record.partition(), this.slotName, ex.getClass().getName());
			return null;
		}
		logger.warn("Ignoring the record at offset {} of {} for slot {}: it holds no commit LSN", record.offset(),
				record.topic() + "-" + record.partition(), this.slotName);
		return null;
	}

	private static String quoted(String text) {
		return new String(ChangeJson.value(text), StandardCharsets.UTF_8);
	}

}
