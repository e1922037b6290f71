package io.postlog.spring.boot.health;

import io.postlog.admin.SlotInfo;
import io.postlog.consumer.ConsumerState;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogSlotMonitor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.util.unit.DataSize;

/**
 * Health of postlog's consumer and its slot: UP while the consumer runs; UNKNOWN while it
 * starts, waits in standby, retries, or when no consumer runs; DOWN when it failed, when
 * the slot is missing or lost ({@code wal_status = lost}), or when the slot lags more
 * than the configured limit. Thread-safe.
 */
public class PostlogHealthIndicator extends AbstractHealthIndicator {

	private final PostlogListenerRegistry registry;

	private final PostlogSlotMonitor monitor;

	private final @Nullable DataSize maxLag;

	/**
	 * Creates an indicator.
	 * @param registry the listener registry
	 * @param monitor reads the slot
	 * @param maxLag lag above which health is DOWN, or {@code null} for no limit
	 */
	public PostlogHealthIndicator(PostlogListenerRegistry registry, PostlogSlotMonitor monitor,
			@Nullable DataSize maxLag) {
		super("postlog health check failed");
		this.registry = registry;
		this.monitor = monitor;
		this.maxLag = maxLag;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		ConsumerState state = this.registry.state();
		PostlogSlotMonitor.SlotStatus status = this.monitor.status();
		SlotInfo slot = status.slot();
		Long lag = status.lagBytes();
		builder.withDetail("slot", status.slotName());
		builder.withDetail("state", (state != null) ? state.name() : "NOT_STARTED");
		if (slot != null) {
			if (slot.confirmedFlushLsn() != null) {
				builder.withDetail("confirmedFlushLsn", slot.confirmedFlushLsn().toString());
			}
			if (slot.walStatus() != null) {
				builder.withDetail("walStatus", slot.walStatus());
			}
		}
		if (lag != null) {
			builder.withDetail("lagBytes", lag);
		}
		if (this.registry.lastCommitTime() != null) {
			builder.withDetail("lastCommitTime", this.registry.lastCommitTime().toString());
		}
		builder.status(status(state, slot, lag));
	}

	private Status status(@Nullable ConsumerState state, @Nullable SlotInfo slot, @Nullable Long lag) {
		if (state == ConsumerState.FAILED || state == ConsumerState.STOPPED) {
			return Status.DOWN;
		}
		if (state != null && slot == null) {
			return Status.DOWN;
		}
		if (slot != null && "lost".equals(slot.walStatus())) {
			return Status.DOWN;
		}
		if (this.maxLag != null && lag != null && lag > this.maxLag.toBytes()) {
			return Status.DOWN;
		}
		return (state == ConsumerState.RUNNING) ? Status.UP : Status.UNKNOWN;
	}

}
