package io.postlog.spring.boot.health;

import java.time.Instant;
import java.util.function.Supplier;

import io.postlog.admin.SlotInfo;
import io.postlog.consumer.ConsumerState;
import io.postlog.spring.PostlogConsumerGroup;
import io.postlog.spring.PostlogSlotMonitor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.util.unit.DataSize;

/**
 * Health of one consumer group and its slot: UP while the consumer runs; UNKNOWN while it
 * starts, waits in standby, retries, or when no consumer runs; DOWN when it failed or
 * stopped, when the slot is missing or lost ({@code wal_status = lost}), or when the slot
 * lags more than the configured limit. Details: {@code slot}, {@code state},
 * {@code confirmedFlushLsn}, {@code walStatus}, {@code lagBytes}, {@code lastCommitTime}
 * and, after a failure, {@code lastError} (value-free). Thread-safe.
 */
public class PostlogHealthIndicator extends AbstractHealthIndicator {

	private final Supplier<@Nullable ConsumerState> state;

	private final Supplier<@Nullable Instant> lastCommitTime;

	private final Supplier<@Nullable Throwable> lastFailure;

	private final Supplier<PostlogSlotMonitor.SlotStatus> slot;

	private final @Nullable DataSize maxLag;

	/**
	 * Creates an indicator of a running group.
	 * @param group the group
	 * @param maxLag lag above which health is DOWN, or {@code null} for no limit
	 */
	public PostlogHealthIndicator(PostlogConsumerGroup group, @Nullable DataSize maxLag) {
		this(group::state, group::lastCommitTime, group::lastFailure, group.monitor()::status, maxLag);
	}

	/**
	 * Creates an indicator.
	 * @param state the consumer's state, {@code null} when none runs
	 * @param lastCommitTime the commit time of the last transaction delivered
	 * @param lastFailure the latest failure
	 * @param slot reads the slot and the server's position
	 * @param maxLag lag above which health is DOWN, or {@code null} for no limit
	 */
	public PostlogHealthIndicator(Supplier<@Nullable ConsumerState> state, Supplier<@Nullable Instant> lastCommitTime,
			Supplier<@Nullable Throwable> lastFailure, Supplier<PostlogSlotMonitor.SlotStatus> slot,
			@Nullable DataSize maxLag) {
		super("postlog health check failed");
		this.state = state;
		this.lastCommitTime = lastCommitTime;
		this.lastFailure = lastFailure;
		this.slot = slot;
		this.maxLag = maxLag;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		ConsumerState state = this.state.get();
		PostlogSlotMonitor.SlotStatus status = this.slot.get();
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
		Instant lastCommitTime = this.lastCommitTime.get();
		if (lastCommitTime != null) {
			builder.withDetail("lastCommitTime", lastCommitTime.toString());
		}
		Throwable failure = this.lastFailure.get();
		if (failure != null && state != ConsumerState.RUNNING && failure.getMessage() != null) {
			builder.withDetail("lastError", failure.getMessage());
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
