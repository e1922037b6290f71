package io.postlog.kafka.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.postlog.kafka.KafkaRelay;
import io.postlog.kafka.RelayProgress;
import io.postlog.spring.boot.metrics.GroupMeters;
import org.jspecify.annotations.Nullable;

/**
 * Meters of the Kafka relay, tagged {@code slot} and {@code group} ({@code kafka}) like
 * the core's: {@code postlog.kafka.records} (records committed to Kafka),
 * {@code postlog.kafka.transactions} (Kafka transactions committed),
 * {@code postlog.kafka.fences} (times the producer was fenced),
 * {@code postlog.kafka.last-commit-lsn} (the relayed position, as a number),
 * {@code postlog.kafka.delay} (source commit to Kafka commit, per Kafka transaction); and
 * the core's meters for the relay's slot through {@link GroupMeters}
 * ({@code postlog.changes}, {@code postlog.transactions}, {@code postlog.slot.lag}, ...).
 * Thread-safe.
 */
public class PostlogKafkaMetrics implements MeterBinder {

	/** The group tag of the relay's meters: its consumer is a group of its own. */
	public static final String GROUP = "kafka";

	private final Supplier<@Nullable KafkaRelay> relay;

	private final String slotName;

	private final GroupMeters slotMetrics;

	private volatile @Nullable Timer delay;

	/**
	 * Creates the meters' source.
	 * @param relay gives the running relay, or {@code null} when none runs
	 * @param slotName the relay's slot
	 * @param slotMetrics the core's meters for the relay's slot
	 */
	public PostlogKafkaMetrics(Supplier<@Nullable KafkaRelay> relay, String slotName, GroupMeters slotMetrics) {
		this.relay = relay;
		this.slotName = slotName;
		this.slotMetrics = slotMetrics;
	}

	/**
	 * Returns the core's meters of the relay's slot, to be added to the relay as a
	 * listener.
	 * @return the slot meters
	 */
	public GroupMeters slotMetrics() {
		return this.slotMetrics;
	}

	/**
	 * Records one Kafka commit.
	 * @param commitTime the source commit time of its last record
	 * @param kafkaCommit when Kafka committed
	 */
	public void committed(@Nullable Instant commitTime, Instant kafkaCommit) {
		Timer delay = this.delay;
		if (delay != null && commitTime != null) {
			delay.record(Math.max(0, Duration.between(commitTime, kafkaCommit).toMillis()), TimeUnit.MILLISECONDS);
		}
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.slotMetrics.bindTo(registry);
		FunctionCounter.builder("postlog.kafka.records", this, progress(RelayProgress::records))
			.description("Records committed to Kafka by the relay")
			.tag("slot", this.slotName)
			.tag("group", GROUP)
			.register(registry);
		FunctionCounter.builder("postlog.kafka.transactions", this, progress(RelayProgress::transactions))
			.description("Kafka transactions committed by the relay")
			.tag("slot", this.slotName)
			.tag("group", GROUP)
			.register(registry);
		FunctionCounter.builder("postlog.kafka.fences", this, progress(RelayProgress::fences))
			.description("Times the relay's producer was fenced by another relay")
			.tag("slot", this.slotName)
			.tag("group", GROUP)
			.register(registry);
		Gauge.builder("postlog.kafka.last-commit-lsn", this, progress((progress) -> progress.lastCommitLsn().value()))
			.description("Commit LSN of the last source transaction committed to Kafka")
			.tag("slot", this.slotName)
			.tag("group", GROUP)
			.register(registry);
		this.delay = Timer.builder("postlog.kafka.delay")
			.description("Time from a source transaction's commit to the Kafka commit that relayed it")
			.tag("slot", this.slotName)
			.tag("group", GROUP)
			.register(registry);
	}

	private ToDoubleFunction<PostlogKafkaMetrics> progress(ToDoubleFunction<RelayProgress> value) {
		return (metrics) -> {
			KafkaRelay relay = metrics.relay.get();
			return (relay != null) ? value.applyAsDouble(relay.progress()) : Double.NaN;
		};
	}

}
