package io.postlog.spring.boot.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.Transaction;
import io.postlog.consumer.ConsumerListener;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.spring.PostlogSlotMonitor.SlotStatus;
import org.jspecify.annotations.Nullable;

/**
 * The meters of one consumer group, fed by its consumer's events and tagged with its
 * {@code slot} and {@code group}; the slot gauges show the slot monitor's latest reading
 * (NaN while the server cannot be read), taken at most every few seconds, and
 * {@code postlog.slot.read.failures} counts the readings that failed. Thread-safe.
 */
public class GroupMeters implements ConsumerListener {

	private static final Duration STATUS_CACHE = Duration.ofSeconds(5);

	private final String slot;

	private final String group;

	private final PostlogSlotMonitor monitor;

	private volatile @Nullable MeterRegistry registry;

	private volatile @Nullable Timer delay;

	private volatile @Nullable Timer handlerDuration;

	private volatile @Nullable Counter transactions;

	private volatile @Nullable Counter retries;

	private volatile @Nullable SlotStatus status;

	private volatile Instant statusReadAt = Instant.MIN;

	private final AtomicLong toastReselects;

	/**
	 * Creates a group's meters.
	 * @param slot the group's slot
	 * @param group the group's name as meters show it ({@code default} for the default
	 * group)
	 * @param monitor reads the slot's lag
	 */
	public GroupMeters(String slot, String group, PostlogSlotMonitor monitor) {
		this(slot, group, monitor, new AtomicLong());
	}

	/**
	 * Creates the meters of a group whose listeners may read TOASTed values again.
	 * @param slot the group's slot
	 * @param group the group's display name
	 * @param monitor the group's slot monitor
	 * @param toastReselects the rows its {@code toast = RESELECT} listeners read again
	 */
	public GroupMeters(String slot, String group, PostlogSlotMonitor monitor, AtomicLong toastReselects) {
		this.slot = slot;
		this.group = group;
		this.monitor = monitor;
		this.toastReselects = toastReselects;
	}

	/**
	 * Registers the meters.
	 * @param registry the registry
	 */
	public void bindTo(MeterRegistry registry) {
		FunctionCounter.builder("postlog.toast.reselects", this.toastReselects, AtomicLong::get)
			.description("Rows read again for the unchanged TOASTed values of toast = RESELECT listeners")
			.tags("slot", this.slot, "group", this.group)
			.register(registry);
		this.transactions = Counter.builder("postlog.transactions")
			.description("Transactions delivered to listeners")
			.tags("slot", this.slot, "group", this.group)
			.register(registry);
		this.retries = Counter.builder("postlog.retries")
			.description("Deliveries retried after a failure")
			.tags("slot", this.slot, "group", this.group)
			.register(registry);
		this.delay = Timer.builder("postlog.replication.delay")
			.description("Time from commit to delivery")
			.tags("slot", this.slot, "group", this.group)
			.register(registry);
		this.handlerDuration = Timer.builder("postlog.handler.duration")
			.description("Time listeners took per transaction")
			.tags("slot", this.slot, "group", this.group)
			.register(registry);
		Gauge.builder("postlog.slot.lag", this, (meters) -> meters.read(SlotStatus::lagBytes))
			.description("WAL the slot retains beyond its confirmed position")
			.baseUnit("bytes")
			.tags("slot", this.slot, "group", this.group)
			.register(registry);
		Gauge.builder("postlog.slot.retained", this, (meters) -> meters.read(SlotStatus::retainedBytes))
			.description("WAL the server keeps for the slot, from its restart_lsn to the current position")
			.baseUnit("bytes")
			.tags("slot", this.slot, "group", this.group)
			.register(registry);
		Gauge
			.builder("postlog.slot.safe-wal-size", this,
					(meters) -> meters.read((status) -> (status.slot() != null) ? status.slot().safeWalSize() : null))
			.description("WAL that can still be written before max_slot_wal_keep_size invalidates the slot")
			.baseUnit("bytes")
			.tags("slot", this.slot, "group", this.group)
			.register(registry);
		FunctionCounter.builder("postlog.slot.read.failures", this.monitor, PostlogSlotMonitor::readFailures)
			.description("Readings of the slot and the server for health, the endpoint and meters that failed")
			.tags("slot", this.slot, "group", this.group)
			.register(registry);
		this.registry = registry;
	}

	private double read(Function<SlotStatus, @Nullable Long> value) {
		Instant now = Instant.now();
		if (this.statusReadAt.plus(STATUS_CACHE).isBefore(now)) {
			this.statusReadAt = now;
			PostlogSlotMonitor.Reading reading = this.monitor.reading();
			this.status = reading.available() ? reading.slot() : null;
		}
		SlotStatus status = this.status;
		Long bytes = (status != null) ? value.apply(status) : null;
		return (bytes != null) ? bytes : Double.NaN;
	}

	/**
	 * Records a heartbeat's round trip as a replication delay.
	 * @param roundTrip the time from writing the heartbeat to receiving it
	 */
	void roundTrip(Duration roundTrip) {
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
				.counter("postlog.changes", "slot", this.slot, "group", this.group, "table", change.table().toString(),
						"operation", change.operation().name())
				.increment();
			if (change.operation() == Operation.SNAPSHOT) {
				registry
					.counter("postlog.snapshot.rows", "slot", this.slot, "group", this.group, "table",
							change.table().toString())
					.increment();
			}
		}
	}

	@Override
	public void transactionDelivered(Transaction transaction, Duration handlerTime) {
		Counter transactions = this.transactions;
		Timer handlerDuration = this.handlerDuration;
		Timer delay = this.delay;
		if (transactions != null && handlerDuration != null && delay != null) {
			transactions.increment();
			handlerDuration.record(handlerTime);
			long millis = Duration.between(transaction.commitTime(), Instant.now()).toMillis();
			delay.record(Math.max(0, millis), TimeUnit.MILLISECONDS);
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
