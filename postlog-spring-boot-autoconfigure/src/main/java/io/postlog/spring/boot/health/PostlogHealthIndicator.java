package io.postlog.spring.boot.health;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.postlog.Lsn;
import io.postlog.admin.ReplicationSettings;
import io.postlog.admin.SlotInfo;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.SnapshotProgress;
import io.postlog.heartbeat.HeartbeatStatus;
import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.snapshot.TableProgress;
import io.postlog.spring.FailureText;
import io.postlog.spring.PostlogConsumerGroup;
import io.postlog.spring.PostlogConsumerGroup.ListenerInfo;
import io.postlog.spring.PostlogSlotMonitor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.util.unit.DataSize;

/**
 * Health of one consumer group and its slot: UP while the consumer runs; UNKNOWN while it
 * starts, waits in standby, retries, or when no consumer runs; DOWN, with every reason in
 * the {@code reasons} detail, when it failed, when the slot is missing, lost
 * ({@code wal_status = lost}) or {@code unreserved}, when it lags more than
 * {@code postlog.health.max-lag}, retains more WAL than
 * {@code postlog.health.max-retained} or than {@code postlog.health.max-retained-ratio}
 * of {@code max_slot_wal_keep_size}, or when a heartbeat has not come back within
 * {@code postlog.heartbeat.timeout}. UP again as soon as the cause is gone. While the
 * consumer is not running, the {@code lastError} detail gives its latest failure:
 * postlog's own message, or the class of any other exception, never that exception's
 * message. While an initial snapshot runs, health is UNKNOWN, not DOWN, with its progress
 * in the {@code snapshot} detail: the application is working, but its listeners have not
 * seen every row yet, and on PostgreSQL 12+ the slot exists only once the snapshot is
 * handed over (the rules judge the snapshot's temporary slot meanwhile). The slot's
 * values come from the latest reading of its {@link PostlogSlotMonitor}, which a
 * background thread takes, so a health call never waits on the server: while the database
 * is down it answers at once with the consumer's state (such as {@code RETRYING}), its
 * {@code cause}, the {@code lastContact} with the server, and a {@code reading} detail
 * saying the slot's values are {@code unavailable}, why, and how old they are. A listener
 * stopped by its error handler makes it DOWN, named in {@code reasons} and
 * {@code listeners}. Thread-safe.
 */
public class PostlogHealthIndicator extends AbstractHealthIndicator {

	private final Supplier<@Nullable ConsumerState> state;

	private final Supplier<@Nullable Instant> lastCommitTime;

	private final Supplier<@Nullable Throwable> lastFailure;

	private final Supplier<@Nullable SnapshotProgress> snapshot;

	private final Supplier<PostlogSlotMonitor.Reading> reading;

	private final HealthRules.Limits limits;

	private final @Nullable HeartbeatTracker heartbeats;

	/** The group's listeners, when the indicator watches a group. */
	private Supplier<List<ListenerInfo>> listeners = List::of;

	/**
	 * Creates an indicator of a running group with only a lag limit.
	 * @param group the group
	 * @param maxLag lag above which health is DOWN, or {@code null} for no limit
	 */
	public PostlogHealthIndicator(PostlogConsumerGroup group, @Nullable DataSize maxLag) {
		this(group, maxLag, null, 0.5, null);
	}

	/**
	 * Creates an indicator of a running group.
	 * @param group the group
	 * @param maxLag lag above which health is DOWN, or {@code null} for no limit
	 * @param maxRetained retained WAL above which health is DOWN, or {@code null}
	 * @param maxRetainedRatio share of {@code max_slot_wal_keep_size} above which health
	 * is DOWN
	 * @param heartbeats the heartbeats to watch (the default group's), or {@code null}
	 */
	public PostlogHealthIndicator(PostlogConsumerGroup group, @Nullable DataSize maxLag, @Nullable DataSize maxRetained,
			double maxRetainedRatio, @Nullable HeartbeatTracker heartbeats) {
		this(group::state, group::lastCommitTime, group::lastFailure, group::snapshot, group.monitor(), maxLag,
				maxRetained, maxRetainedRatio, heartbeats);
		this.listeners = group::listeners;
	}

	/**
	 * Creates an indicator.
	 * @param state the consumer's state, {@code null} when none runs
	 * @param lastCommitTime the commit time of the last transaction delivered
	 * @param lastFailure the consumer's latest failure
	 * @param slot reads the slot, the server's position and settings
	 * @param maxLag lag above which health is DOWN, or {@code null} for no limit
	 * @param maxRetained retained WAL above which health is DOWN, or {@code null}
	 * @param maxRetainedRatio share of {@code max_slot_wal_keep_size} above which health
	 * is DOWN
	 * @param heartbeats the heartbeats to watch, or {@code null} when they are off
	 */
	public PostlogHealthIndicator(Supplier<@Nullable ConsumerState> state, Supplier<@Nullable Instant> lastCommitTime,
			Supplier<@Nullable Throwable> lastFailure, Supplier<PostlogSlotMonitor.SlotStatus> slot,
			@Nullable DataSize maxLag, @Nullable DataSize maxRetained, double maxRetainedRatio,
			@Nullable HeartbeatTracker heartbeats) {
		this(state, lastCommitTime, lastFailure, () -> null, slot, maxLag, maxRetained, maxRetainedRatio, heartbeats);
	}

	/**
	 * Creates an indicator.
	 * @param state the consumer's state, {@code null} when none runs
	 * @param lastCommitTime the commit time of the last transaction delivered
	 * @param lastFailure the consumer's latest failure
	 * @param snapshot the initial snapshot's progress, {@code null} when none was taken
	 * @param slot reads the slot, the server's position and settings
	 * @param maxLag lag above which health is DOWN, or {@code null} for no limit
	 * @param maxRetained retained WAL above which health is DOWN, or {@code null}
	 * @param maxRetainedRatio share of {@code max_slot_wal_keep_size} above which health
	 * is DOWN
	 * @param heartbeats the heartbeats to watch, or {@code null} when they are off
	 */
	public PostlogHealthIndicator(Supplier<@Nullable ConsumerState> state, Supplier<@Nullable Instant> lastCommitTime,
			Supplier<@Nullable Throwable> lastFailure, Supplier<@Nullable SnapshotProgress> snapshot,
			Supplier<PostlogSlotMonitor.SlotStatus> slot, @Nullable DataSize maxLag, @Nullable DataSize maxRetained,
			double maxRetainedRatio, @Nullable HeartbeatTracker heartbeats) {
		this(new HealthRules.Limits(maxLag, maxRetained, maxRetainedRatio),
				() -> PostlogSlotMonitor.Reading.of(slot.get()), state, lastCommitTime, lastFailure, snapshot,
				heartbeats);
	}

	/**
	 * Creates an indicator that judges the latest reading of a slot monitor, so that it
	 * never waits on the server.
	 * @param state the consumer's state, {@code null} when none runs
	 * @param lastCommitTime the commit time of the last transaction delivered
	 * @param lastFailure the consumer's latest failure
	 * @param snapshot the initial snapshot's progress, {@code null} when none was taken
	 * @param monitor the slot's monitor
	 * @param maxLag lag above which health is DOWN, or {@code null} for no limit
	 * @param maxRetained retained WAL above which health is DOWN, or {@code null}
	 * @param maxRetainedRatio share of {@code max_slot_wal_keep_size} above which health
	 * is DOWN
	 * @param heartbeats the heartbeats to watch, or {@code null} when they are off
	 */
	public PostlogHealthIndicator(Supplier<@Nullable ConsumerState> state, Supplier<@Nullable Instant> lastCommitTime,
			Supplier<@Nullable Throwable> lastFailure, Supplier<@Nullable SnapshotProgress> snapshot,
			PostlogSlotMonitor monitor, @Nullable DataSize maxLag, @Nullable DataSize maxRetained,
			double maxRetainedRatio, @Nullable HeartbeatTracker heartbeats) {
		this(new HealthRules.Limits(maxLag, maxRetained, maxRetainedRatio), monitor::reading, state, lastCommitTime,
				lastFailure, snapshot, heartbeats);
	}

	private PostlogHealthIndicator(HealthRules.Limits limits, Supplier<PostlogSlotMonitor.Reading> reading,
			Supplier<@Nullable ConsumerState> state, Supplier<@Nullable Instant> lastCommitTime,
			Supplier<@Nullable Throwable> lastFailure, Supplier<@Nullable SnapshotProgress> snapshot,
			@Nullable HeartbeatTracker heartbeats) {
		super("postlog health check failed");
		this.state = state;
		this.lastCommitTime = lastCommitTime;
		this.lastFailure = lastFailure;
		this.snapshot = snapshot;
		this.reading = reading;
		this.limits = limits;
		this.heartbeats = heartbeats;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		ConsumerState state = this.state.get();
		Instant now = Instant.now();
		PostlogSlotMonitor.Reading reading = this.reading.get();
		PostlogSlotMonitor.SlotStatus status = reading.slot();
		SlotInfo slot = (status != null) ? status.slot() : null;
		ReplicationSettings settings = (status != null) ? status.settings() : null;
		String readFailure = (reading.failure() != null) ? reading.unavailableReason() : null;
		HeartbeatStatus heartbeat = (this.heartbeats != null) ? this.heartbeats.status(now) : null;
		builder.withDetail("slot", reading.slotName());
		builder.withDetail("state", (state != null) ? state.name() : "NOT_STARTED");
		if (slot != null) {
			if (slot.confirmedFlushLsn() != null) {
				builder.withDetail("confirmedFlushLsn", slot.confirmedFlushLsn().toString());
			}
			if (slot.walStatus() != null) {
				builder.withDetail("walStatus", slot.walStatus());
			}
			if (slot.safeWalSize() != null) {
				builder.withDetail("safeWalSize", slot.safeWalSize());
			}
		}
		if (status != null && status.lagBytes() != null) {
			builder.withDetail("lagBytes", status.lagBytes());
		}
		if (status != null && status.retainedBytes() != null) {
			builder.withDetail("retainedBytes", status.retainedBytes());
		}
		if (settings != null && settings.maxSlotWalKeepSize() != null) {
			builder.withDetail("maxSlotWalKeepSize", settings.maxSlotWalKeepSize());
		}
		Instant lastCommitTime = this.lastCommitTime.get();
		if (lastCommitTime != null) {
			builder.withDetail("lastCommitTime", lastCommitTime.toString());
		}
		Throwable failure = this.lastFailure.get();
		if (failure != null && state != ConsumerState.RUNNING) {
			// Never a listener's own message, nor any that is not postlog's.
			builder.withDetail("lastError", FailureText.of(failure, false));
			builder.withDetail("cause", HealthRules.cause(failure));
		}
		if (reading.lastContact() != null) {
			builder.withDetail("lastContact", reading.lastContact().toString());
		}
		builder.withDetail("reading", HealthRules.reading(reading.lastContact(), readFailure, now));
		if (settings != null && settings.syncReplicationSlots() != null) {
			builder.withDetail("failover", failover(slot, settings));
		}
		if (heartbeat != null) {
			builder.withDetail("heartbeat", heartbeat(heartbeat));
		}
		SnapshotProgress snapshot = this.snapshot.get();
		SlotInfo snapshotSlot = (status != null) ? status.snapshotSlot() : null;
		if (snapshot != null || snapshotSlot != null) {
			builder.withDetail("snapshot", snapshot(snapshot, snapshotSlot));
		}
		HealthRules.Verdict verdict = HealthRules.evaluate(new HealthRules.Input(state, reading.slotName(), slot,
				(status != null) ? status.currentLsn() : Lsn.INVALID, settings, heartbeat, snapshotSlot, readFailure),
				this.limits);
		List<ListenerInfo> listeners = this.listeners.get();
		Map<String, Object> listenerDetails = ListenerHealth.details(listeners);
		if (!listenerDetails.isEmpty()) {
			builder.withDetail("listeners", listenerDetails);
		}
		List<String> stopped = ListenerHealth.reasons(listeners);
		List<String> reasons = new ArrayList<>(verdict.reasons());
		reasons.addAll(stopped);
		if (!reasons.isEmpty()) {
			builder.withDetail("reasons", reasons);
		}
		builder.status(stopped.isEmpty() ? verdict.status() : Status.DOWN);
	}

	/**
	 * Whether a promotion would keep the slot (17+): the slot fails over and logical
	 * senders wait for the standbys named in {@code synchronized_standby_slots}.
	 */
	private static Map<String, Object> failover(@Nullable SlotInfo slot, ReplicationSettings settings) {
		Map<String, Object> failover = new LinkedHashMap<>();
		boolean enabled = slot != null && Boolean.TRUE.equals(slot.failover());
		failover.put("enabled", enabled);
		failover.put("synchronizedStandbySlots", String.valueOf(settings.synchronizedStandbySlots()));
		failover.put("ready", enabled && settings.waitsForStandbys());
		return failover;
	}

	private static Map<String, Object> snapshot(@Nullable SnapshotProgress progress, @Nullable SlotInfo snapshotSlot) {
		Map<String, Object> snapshot = new LinkedHashMap<>();
		if (progress != null) {
			snapshot.put("consistentPoint", progress.consistentPoint().toString());
			snapshot.put("complete", progress.complete());
			snapshot.put("rowsDone", progress.rowsDone());
			snapshot.put("rowsEstimated", progress.rowsEstimated());
			snapshot.put("tables", progress.tables().size());
			snapshot.put("tablesDone", progress.tables().stream().filter(TableProgress::done).count());
		}
		if (snapshotSlot != null) {
			snapshot.put("slot", snapshotSlot.slotName());
			snapshot.put("active", snapshotSlot.active());
		}
		return snapshot;
	}

	private static Map<String, Object> heartbeat(HeartbeatStatus status) {
		Map<String, Object> heartbeat = new LinkedHashMap<>();
		heartbeat.put("timeout", status.timeout().toString());
		if (status.lastReceivedAt() != null) {
			heartbeat.put("lastReceivedAt", status.lastReceivedAt().toString());
		}
		if (status.lastRoundTrip() != null) {
			heartbeat.put("lastRoundTrip", status.lastRoundTrip().toString());
		}
		if (status.missingFor() != null) {
			heartbeat.put("outstandingFor", status.missingFor().toString());
		}
		return heartbeat;
	}

}
