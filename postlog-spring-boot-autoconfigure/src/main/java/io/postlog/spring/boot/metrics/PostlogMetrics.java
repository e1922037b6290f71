package io.postlog.spring.boot.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.postlog.Change;
import io.postlog.Transaction;
import io.postlog.consumer.ConsumerListener;
import io.postlog.spring.PostlogSlotMonitor;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer meters for postlog, fed by the consumer's events: {@code postlog.changes}
 * (tags {@code table}, {@code operation}), {@code postlog.transactions},
 * {@code postlog.replication.delay} (commit to delivery),
 * {@code postlog.handler.duration}, {@code postlog.retries} and the gauge
 * {@code postlog.slot.lag} (bytes, read from the server at most every few seconds). Every
 * meter carries the tag {@code slot}. Events before binding are not counted. Thread-safe.
 */
public class PostlogMetrics implements MeterBinder, ConsumerListener {

	private static final Duration LAG_CACHE = Duration.ofSeconds(5);

	private final PostlogSlotMonitor monitor;

	private volatile @Nullable MeterRegistry registry;

	private volatile @Nullable Timer delay;

	private volatile @Nullable Timer handlerDuration;

	private volatile @Nullable Counter transactions;

	private volatile @Nullable Counter retries;

	private volatile double lag = Double.NaN;

	private volatile Instant lagReadAt = Instant.MIN;

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
		Gauge.builder("postlog.slot.lag", this, PostlogMetrics::slotLag)
			.description("WAL the slot retains beyond its confirmed position")
			.baseUnit("bytes")
			.tag("slot", slot)
			.register(registry);
		this.registry = registry;
	}

	private double slotLag() {
		Instant now = Instant.now();
		if (this.lagReadAt.plus(LAG_CACHE).isBefore(now)) {
			this.lagReadAt = now;
			try {
				Long bytes = this.monitor.status().lagBytes();
				this.lag = (bytes != null) ? bytes : Double.NaN;
			}
			catch (RuntimeException ex) {
				this.lag = Double.NaN;
			}
		}
		return this.lag;
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
