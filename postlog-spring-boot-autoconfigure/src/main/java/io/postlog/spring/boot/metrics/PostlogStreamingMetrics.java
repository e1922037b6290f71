package io.postlog.spring.boot.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.function.ToLongFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.postlog.admin.SlotStatistics;
import io.postlog.spring.PostlogStreamingMonitor;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer meters for large transactions: {@code postlog.streaming.spilled} (counter,
 * bytes the consumer wrote to spill files for in-progress streamed transactions),
 * {@code postlog.streaming.spill-size} (gauge, bytes of such spill files on disk now),
 * and {@code postlog.slot.server-spill} (gauges from {@code pg_stat_replication_slots},
 * PostgreSQL 14+, read at most every few seconds, NaN before 14): with tag
 * {@code kind=spill} the bytes the server spilled to its own disk for the slot
 * ({@code spill_bytes}), with {@code kind=stream} the bytes it streamed instead
 * ({@code stream_bytes}). A growing {@code kind=spill} is the sign to turn streaming on.
 * Every meter carries the tag {@code slot}. Thread-safe.
 */
public class PostlogStreamingMetrics implements MeterBinder {

	private static final Duration STATISTICS_CACHE = Duration.ofSeconds(5);

	private final PostlogStreamingMonitor monitor;

	private volatile @Nullable SlotStatistics statistics;

	private volatile Instant readAt = Instant.MIN;

	/**
	 * Creates the meters' source.
	 * @param monitor the consumer's spill and the server's statistics
	 */
	public PostlogStreamingMetrics(PostlogStreamingMonitor monitor) {
		this.monitor = monitor;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		String slot = this.monitor.slotName();
		FunctionCounter.builder("postlog.streaming.spilled", this.monitor, PostlogStreamingMonitor::spilledBytesTotal)
			.description("Bytes written to spill files for in-progress streamed transactions")
			.baseUnit("bytes")
			.tag("slot", slot)
			.register(registry);
		Gauge.builder("postlog.streaming.spill-size", this.monitor, PostlogStreamingMonitor::spilledBytes)
			.description("Bytes of spill files of in-progress streamed transactions on disk now")
			.baseUnit("bytes")
			.tag("slot", slot)
			.register(registry);
		serverGauge(registry, slot, "spill", SlotStatistics::spillBytes,
				"Bytes the server spilled to its own disk for the slot's large transactions (spill_bytes)");
		serverGauge(registry, slot, "stream", SlotStatistics::streamBytes,
				"Bytes of in-progress transactions the server streamed for the slot (stream_bytes)");
	}

	private void serverGauge(MeterRegistry registry, String slot, String kind, ToLongFunction<SlotStatistics> value,
			String description) {
		Gauge.builder("postlog.slot.server-spill", this, (metrics) -> metrics.read(value))
			.description(description)
			.baseUnit("bytes")
			.tag("slot", slot)
			.tag("kind", kind)
			.register(registry);
	}

	private double read(ToLongFunction<SlotStatistics> value) {
		Instant now = Instant.now();
		if (this.readAt.plus(STATISTICS_CACHE).isBefore(now)) {
			this.readAt = now;
			try {
				this.statistics = this.monitor.serverStatistics();
			}
			catch (RuntimeException ex) {
				this.statistics = null;
			}
		}
		SlotStatistics current = this.statistics;
		return (current != null) ? value.applyAsLong(current) : Double.NaN;
	}

}
