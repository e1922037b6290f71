package io.postlog.kafka.health;

import io.postlog.consumer.ConsumerState;
import io.postlog.kafka.KafkaRelay;
import io.postlog.kafka.PostlogKafkaRelay;
import io.postlog.kafka.RelayProgress;
import io.postlog.spring.PostlogSlotMonitor;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the Kafka relay ({@code postlogKafka}): UP while it relays ({@code RUNNING}:
 * its producers are ready), UNKNOWN while it starts or waits in standby behind another
 * relay, DOWN while it retries (for example its transaction coordinator did not answer
 * within {@code postlog.kafka.init-timeout}), when it failed or does not run. Details:
 * {@code slot}, {@code state}, {@code lastCommitLsn} (the position in the offsets topic),
 * {@code ackedLsn}, {@code records}, {@code kafkaTransactions}, {@code fences},
 * {@code lastCommitTime}, {@code lagBytes}, and while it is not {@code RUNNING}
 * {@code lastError}, the message of its latest failure (value-free). The state and the
 * failure are read from the relay, never asked of Kafka. Thread-safe.
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
		Throwable failure = relay.lastFailure();
		if (failure != null && state != ConsumerState.RUNNING && failure.getMessage() != null) {
			builder.withDetail("lastError", failure.getMessage());
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
			case RETRYING, FAILED, STOPPED -> builder.down();
			default -> builder.unknown();
		}
	}

}
