package io.postlog.kafka.health;

import io.postlog.consumer.ConsumerState;
import io.postlog.kafka.KafkaRelay;
import io.postlog.kafka.PostlogKafkaRelay;
import io.postlog.kafka.RelayProgress;
import io.postlog.spring.PostlogSlotMonitor;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the Kafka relay ({@code postlogKafka}): UP while it relays, UNKNOWN while it
 * starts, retries or waits in standby behind another relay, DOWN when it failed or does
 * not run. Details: {@code slot}, {@code state}, {@code lastCommitLsn} (the position in
 * the offsets topic), {@code ackedLsn}, {@code records}, {@code kafkaTransactions},
 * {@code fences}, {@code lastCommitTime}, {@code lagBytes}. Thread-safe.
 */
public class PostlogKafkaHealthIndicator extends AbstractHealthIndicator {

	private final PostlogKafkaRelay relay;

	private final PostlogSlotMonitor monitor;

	/**
	 * Creates the indicator.
	 * @param relay the relay
	 * @param monitor reads the relay slot's lag
	 */
	public PostlogKafkaHealthIndicator(PostlogKafkaRelay relay, PostlogSlotMonitor monitor) {
		super("postlog Kafka relay health check failed");
		this.relay = relay;
		this.monitor = monitor;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		KafkaRelay relay = this.relay.relay();
		builder.withDetail("slot", this.monitor.slotName());
		if (relay == null) {
			builder.down().withDetail("state", "NOT_STARTED");
			return;
		}
		ConsumerState state = relay.state();
		builder.withDetail("state", state.name());
		RelayProgress progress = relay.progress();
		builder.withDetail("lastCommitLsn", progress.lastCommitLsn().toString());
		builder.withDetail("ackedLsn", relay.ackedLsn().toString());
		builder.withDetail("records", progress.records());
		builder.withDetail("kafkaTransactions", progress.transactions());
		builder.withDetail("fences", progress.fences());
		if (progress.lastCommitTime() != null) {
			builder.withDetail("lastCommitTime", progress.lastCommitTime().toString());
		}
		PostlogSlotMonitor.Reading reading = this.monitor.reading();
		Long lag = (reading.available() && reading.slot() != null) ? reading.slot().lagBytes() : null;
		if (lag != null) {
			builder.withDetail("lagBytes", lag);
		}
		else if (!reading.available()) {
			builder.withDetail("lagBytes", "unknown: " + reading.unavailableReason());
		}
		switch (state) {
			case RUNNING -> builder.up();
			case FAILED, STOPPED -> builder.down();
			default -> builder.unknown();
		}
	}

}
