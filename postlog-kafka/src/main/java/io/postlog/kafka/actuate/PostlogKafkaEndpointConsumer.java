package io.postlog.kafka.actuate;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.postlog.Lsn;
import io.postlog.consumer.ConsumerState;
import io.postlog.kafka.KafkaRelay;
import io.postlog.kafka.PostlogKafkaRelay;
import io.postlog.kafka.RelayProgress;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.spring.boot.actuate.PostlogEndpointConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The Kafka relay as the {@code postlog} endpoint shows it, as group {@code kafka}: its
 * state, slot, publication, positions and lag like a group's, and in {@code details} the
 * offsets topic, the last commit LSN relayed (the position in that topic), the records,
 * Kafka transactions and fences since start, and when it last committed to Kafka.
 * Thread-safe.
 */
public final class PostlogKafkaEndpointConsumer implements PostlogEndpointConsumer {

	/** The group name the endpoint shows. */
	public static final String GROUP = "kafka";

	private final PostlogKafkaRelay relay;

	private final PostlogSlotMonitor monitor;

	/**
	 * Creates the entry.
	 * @param relay the relay
	 * @param monitor reads the relay's slot and publication
	 */
	public PostlogKafkaEndpointConsumer(PostlogKafkaRelay relay, PostlogSlotMonitor monitor) {
		this.relay = relay;
		this.monitor = monitor;
	}

	@Override
	public String group() {
		return GROUP;
	}

	@Override
	public @Nullable ConsumerState state() {
		return this.relay.state();
	}

	@Override
	public @Nullable Lsn ackedLsn() {
		KafkaRelay running = this.relay.relay();
		return (running != null) ? running.ackedLsn() : null;
	}

	@Override
	public @Nullable Instant lastCommitTime() {
		KafkaRelay running = this.relay.relay();
		return (running != null) ? running.progress().lastCommitTime() : null;
	}

	@Override
	public @Nullable Throwable lastFailure() {
		KafkaRelay running = this.relay.relay();
		return (running != null) ? running.lastFailure() : null;
	}

	@Override
	public PostlogSlotMonitor monitor() {
		return this.monitor;
	}

	@Override
	public Map<String, Object> details() {
		KafkaRelay running = this.relay.relay();
		if (running == null) {
			return Map.of();
		}
		RelayProgress progress = running.progress();
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("offsetsTopic", running.offsetsTopic());
		details.put("lastCommitLsn", progress.lastCommitLsn().toString());
		details.put("records", progress.records());
		details.put("kafkaTransactions", progress.transactions());
		details.put("fences", progress.fences());
		Instant lastKafkaCommit = progress.lastKafkaCommit();
		if (lastKafkaCommit != null) {
			details.put("lastKafkaCommit", lastKafkaCommit.toString());
		}
		return details;
	}

}
