package io.postlog.spring.boot.metrics;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.postlog.consumer.ConsumerListener;
import io.postlog.heartbeat.Heartbeat;
import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.spring.PostlogConsumerGroup;
import io.postlog.spring.PostlogListenerFailedEvent;
import io.postlog.spring.PostlogListenerRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationListener;

/**
 * Micrometer meters for postlog, per consumer group ({@link GroupMeters}):
 * {@code postlog.changes} (tags {@code table}, {@code operation}),
 * {@code postlog.transactions}, {@code postlog.replication.delay} (commit to delivery,
 * and the default group's heartbeat round trips while heartbeats are on),
 * {@code postlog.handler.duration}, {@code postlog.retries}, the gauges
 * {@code postlog.slot.lag} (WAL past the confirmed position),
 * {@code postlog.slot.retained} (WAL from {@code restart_lsn}) and
 * {@code postlog.slot.safe-wal-size} (PostgreSQL 13+ with {@code max_slot_wal_keep_size};
 * NaN otherwise), in bytes, read from the server at most every few seconds, and
 * {@code postlog.listener.skipped} (tag {@code listener}: changes a listener's error
 * handler skipped or dead-lettered) and {@code postlog.snapshot.rows} (tag {@code table}:
 * rows of the initial snapshot delivered). Every meter carries the tags {@code slot} and
 * {@code group}. Events before binding are not counted. Thread-safe.
 */
public class PostlogMetrics implements MeterBinder, PostlogListenerRegistry.GroupObserver,
		ApplicationListener<PostlogListenerFailedEvent>, HeartbeatTracker.RoundTripListener {

	private final List<GroupMeters> groups = new CopyOnWriteArrayList<>();

	private volatile @Nullable GroupMeters defaultGroup;

	private volatile @Nullable MeterRegistry registry;

	@Override
	public synchronized void bindTo(MeterRegistry registry) {
		this.registry = registry;
		for (GroupMeters group : this.groups) {
			group.bindTo(registry);
		}
	}

	@Override
	public synchronized ConsumerListener observe(PostlogConsumerGroup group) {
		GroupMeters meters = new GroupMeters(group.slotName(), group.displayName(), group.monitor(),
				group.toastReselects());
		MeterRegistry registry = this.registry;
		if (registry != null) {
			meters.bindTo(registry);
		}
		this.groups.add(meters);
		if (group.name().isEmpty()) {
			this.defaultGroup = meters;
		}
		return meters;
	}

	@Override
	public void roundTrip(Heartbeat heartbeat, Duration roundTrip) {
		GroupMeters meters = this.defaultGroup;
		if (meters != null) {
			meters.roundTrip(roundTrip);
		}
	}

	@Override
	public void onApplicationEvent(PostlogListenerFailedEvent event) {
		MeterRegistry registry = this.registry;
		if (registry != null && event.outcome() != PostlogListenerFailedEvent.Outcome.STOPPED) {
			registry
				.counter("postlog.listener.skipped", "slot", event.slotName(), "group",
						event.group().isEmpty() ? "default" : event.group(), "listener", event.listenerId())
				.increment();
		}
	}

}
