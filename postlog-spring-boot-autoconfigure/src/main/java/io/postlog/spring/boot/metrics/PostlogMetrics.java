package io.postlog.spring.boot.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.postlog.Change;
import io.postlog.Transaction;
import io.postlog.consumer.ConsumerListener;
import io.postlog.heartbeat.Heartbeat;
import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.spring.PostlogSlotMonitor.SlotStatus;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer meters for postlog, fed by the consumer's events: {@code postlog.changes}
 * (tags {@code table}, {@code operation}), {@code postlog.transactions},
 * {@code postlog.replication.delay} (commit to delivery, and each heartbeat's round trip
 * while heartbeats are on), {@code postlog.handler.duration}, {@code postlog.retries} and
 * the gauges {@code postlog.slot.lag} (WAL past the confirmed position),
 * {@code postlog.slot.retained} (WAL from {@code restart_lsn}, what the server must keep)
 * and {@code postlog.slot.safe-wal-size} (PostgreSQL 13+ with
 * {@code max_slot_wal_keep_size}; NaN otherwise), all in bytes and read from the server
 * at most every few seconds. Every meter carries the tag {@code slot}. Events before
 * binding are not counted. Thread-safe.
 */
public class PostlogMetrics implements MeterBinder, ConsumerListener, HeartbeatTracker.RoundTripListener {

	private static final Duration STATUS_CACHE = Duration.ofSeconds(5);

	private final PostlogSlotMonitor monitor;

	private volatile @Nullable MeterRegistry registry;

	private volatile @Nullable Timer delay;

	private volatile @Nullable Timer handlerDuration;

	private volatile @Nullable Counter transactions;

	private volatile @Nullable Counter retries;

	private volatile @Nullable SlotStatus status;

	private volatile Instant statusReadAt = Instant.MIN;

	/**
	 * Creates the meters' source.
	 * @param monitor reads the slot's lag
	 */
	public PostlogMetrics(PostlogSlotMonitor monitor) {
		this.monitor = monitor;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		String slot = this.monitor.slotName();
		this.transactions = Counter.builder("postlog.transactions")
			.description("Transactions delivered to listeners")
			.tag("slot", slot)
			.register(registry);
		this.retries = Counter.builder("postlog.retries")
			.description("Deliveries retried after a failure")
			.tag("slot", slot)
			.register(registry);
		this.delay = Timer.builder("postlog.replication.delay")
			.description("Time from commit to delivery")
			.tag("slot", slot)
			.register(registry);
		this.handlerDuration = Timer.builder("postlog.handler.duration")
			.description("Time listeners took per transaction")
			.tag("slot", slot)
			.register(registry);
		Gauge.builder("postlog.slot.lag", this, (metrics) -> metrics.read(SlotStatus::lagBytes))
			.description("WAL the slot retains beyond its confirmed position")
			.baseUnit("bytes")
			.tag("slot", slot)
			.register(registry);
		Gauge.builder("postlog.slot.retained", this, (metrics) -> metrics.read(SlotStatus::retainedBytes))
			.description("WAL the server keeps for the slot, from its restart_lsn to the current position")
			.baseUnit("bytes")
			.tag("slot", slot)
			.register(registry);
		Gauge
			.builder("postlog.slot.safe-wal-size", this,
					(metrics) -> metrics.read((status) -> (status.slot() != null) ? status.slot().safeWalSize() : null))
			.description("WAL that can still be written before max_slot_wal_keep_size invalidates the slot")
			.baseUnit("bytes")
			.tag("slot", slot)
			.register(registry);
		this.registry = registry;
	}

	private double read(Function<SlotStatus, @Nullable Long> value) {
		Instant now = Instant.now();
		if (this.statusReadAt.plus(STATUS_CACHE).isBefore(now)) {
			this.statusReadAt = now;
			try {
				this.status = this.monitor.status();
			}
			catch (RuntimeException ex) {
				this.status = null;
			}
		}
		SlotStatus status = this.status;
		Long bytes = (status != null) ? value.apply(status) : null;
		return (bytes != null) ? bytes : Double.NaN;
	}

	@Override
	public void roundTrip(Heartbeat heartbeat, Duration roundTrip) {
		Timer delay = this.delay;
		if (delay != null) {
			delay.record(roundTrip);
		}
	}

	@Override
	public void changeDelivered(Change change, Duration handlerTime) {
		MeterRegistry registry = this.registry;
		if (registry != null) {
			registry
				.counter("postlog.changes", "slot", this.monitor.slotName(), "table", change.table().toString(),
						"operation", change.operation().name())
				.increment();
		}
	}

	@Override
	public void transactionDelivered(Transaction transaction, Duration handlerTime) {
		Counter transactions = this.transactions;
		if (transactions != null) {
			transactions.increment();
			this.handlerDuration.record(handlerTime);
			long millis = Duration.between(transaction.commitTime(), Instant.now()).toMillis();
			this.delay.record(Math.max(0, millis), TimeUnit.MILLISECONDS);
		}
	}

	@Override
	public void retrying(int attempt, Duration backOff, Throwable cause) {
		Counter retries = this.retries;
		if (retries != null) {
			retries.increment();
		}
	}

}
