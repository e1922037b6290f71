package io.postlog.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.postlog.ReplicationConsumerException;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The relay's Kafka client properties: the application's, common and per client, with
 * what exactly-once relaying needs put over them (idempotent transactional producers,
 * {@code read_committed} consumers without a group) and the relay's timeouts.
 *
 * @param common properties of every client
 * @param producerOwn properties of the producers
 * @param consumerOwn properties of the offsets topic's consumer
 * @param adminOwn properties of the admin client
 * @param transactionTimeout the producers' transaction timeout
 * @param initTimeout how long initialising and committing transactions may block
 * @param kafkaTimeout the admin client's request timeout
 */
record RelayClientProperties(Map<String, Object> common, Map<String, Object> producerOwn,
		Map<String, Object> consumerOwn, Map<String, Object> adminOwn, Duration transactionTimeout,
		Duration initTimeout, Duration kafkaTimeout) {

	RelayClientProperties {
		if (initTimeout.isNegative() || initTimeout.isZero() || initTimeout.toMillis() > Integer.MAX_VALUE) {
			throw new ReplicationConsumerException("The Kafka relay's init timeout (postlog.kafka.init-timeout) "
					+ "must be positive and at most " + Integer.MAX_VALUE + " ms, not " + initTimeout);
		}
	}

	/**
	 * Creates a transactional producer.
	 * @param transactionalId its transactional id
	 * @return the producer
	 */
	KafkaProducer<byte[], byte[]> newProducer(String transactionalId) {
		Map<String, Object> properties = producer();
		properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
		return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
	}

	/**
	 * Creates a {@code read_committed} consumer of the offsets topic.
	 * @return the consumer
	 */
	KafkaConsumer<byte[], byte[]> newConsumer() {
		return new KafkaConsumer<>(consumer(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
	}

	/**
	 * The producers' properties, without a transactional id.
	 * @return a new map
	 */
	Map<String, Object> producer() {
		Map<String, Object> properties = new HashMap<>(this.common);
		properties.putAll(this.producerOwn);
		properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
		properties.put(ProducerConfig.ACKS_CONFIG, "all");
		properties.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) this.transactionTimeout.toMillis());
		// initTransactions and commitTransaction block for max.block.ms at most, then
		// throw a TimeoutException: that is the init timeout.
		properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, this.initTimeout.toMillis());
		// A relay sends many small records per transaction: larger batches than the
		// client's 16 KB mean fewer requests, unless configured otherwise.
		properties.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
		properties.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
		properties.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
		return properties;
	}

	/**
	 * The offsets topic consumer's properties.
	 * @return a new map
	 */
	Map<String, Object> consumer() {
		Map<String, Object> properties = new HashMap<>(this.common);
		properties.putAll(this.consumerOwn);
		properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
		properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
		properties.remove(ConsumerConfig.GROUP_ID_CONFIG);
		properties.remove(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG);
		properties.remove(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
		return properties;
	}

	/**
	 * The admin client's properties.
	 * @return a new map
	 */
	Map<String, Object> admin() {
		Map<String, Object> properties = new HashMap<>(this.common);
		properties.putAll(this.adminOwn);
		properties.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) this.kafkaTimeout.toMillis());
		return properties;
	}

}
