package io.postlog.spring.boot.health;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.admin.ReplicationSettings;
import io.postlog.admin.SlotInfo;
import io.postlog.consumer.ConsumerState;
import io.postlog.heartbeat.HeartbeatStatus;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.Status;
import org.springframework.util.unit.DataSize;

/**
 * The rules behind postlog's health, as a pure function of what was read: every reason
 * for DOWN is collected, so that an operator sees all of them at once. Slot rules apply
 * whatever the consumer's state, because a slot fills the disk whether or not this
 * instance is the one reading it; the heartbeat rule applies only while this instance
 * streams. While an initial snapshot is taken for the slot (the consumer is in
 * {@code SNAPSHOT}, or the snapshot's temporary slot exists because another instance
 * takes it), a missing slot is expected: on PostgreSQL 12+ it is created only when the
 * snapshot is handed over, and until then the slot rules judge the snapshot's slot, which
 * is the one retaining WAL. While the slot cannot be read (the server is down, for
 * example), health is DOWN with the reason, and the slot rules judge the last reading
 * that succeeded, if any; a slot is called missing only on a reading that succeeded.
 */
final class HealthRules {

	private HealthRules() {
	}

	static Verdict evaluate(Input input, Limits limits) {
		List<String> reasons = new ArrayList<>();
		ConsumerState state = input.state();
		SlotInfo slot = (input.slot() != null) ? input.slot() : input.snapshotSlot();
		if (state == ConsumerState.FAILED || state == ConsumerState.STOPPED) {
			reasons.add("the consumer is " + state);
		}
		if (input.readFailure() != null) {
			reasons.add(input.readFailure());
		}
		else if (state != null && slot == null && state != ConsumerState.SNAPSHOT && input.settings() != null) {
			reasons.add("replication slot '" + input.slotName() + "' does not exist");
		}
		if (slot != null) {
			slotReasons(input, slot, limits, reasons);
		}
		HeartbeatStatus heartbeat = input.heartbeat();
		if (state == ConsumerState.RUNNING && heartbeat != null && heartbeat.isMissing()) {
			reasons.add("heartbeat not seen for " + text(heartbeat.missingFor()) + " (postlog.heartbeat.timeout is "
					+ text(heartbeat.timeout()) + ")");
		}
		if (!reasons.isEmpty()) {
			return new Verdict(Status.DOWN, reasons);
		}
		return new Verdict((state == ConsumerState.RUNNING) ? Status.UP : Status.UNKNOWN, List.of());
	}

	private static void slotReasons(Input input, SlotInfo slot, Limits limits, List<String> reasons) {
		String name = "replication slot '" + slot.slotName() + "'";
		if (slot.isLost()) {
			reasons.add(name + " is lost (wal_status=" + slot.walStatus()
					+ ((slot.invalidationReason() != null) ? ", invalidation_reason=" + slot.invalidationReason() : "")
					+ "): changes after " + slot.confirmedFlushLsn() + " can no longer be streamed");
			return;
		}
		ReplicationSettings settings = input.settings();
		Long keepSize = (settings != null) ? settings.maxSlotWalKeepSize() : null;
		if ("unreserved".equals(slot.walStatus())) {
			reasons.add(name + " is unreserved: it retains more WAL than max_slot_wal_keep_size"
					+ ((keepSize != null) ? " (" + bytes(keepSize) + ")" : "")
					+ " and is lost at the next checkpoint unless it catches up");
		}
		Long lag = lagBytes(slot, input.position());
		if (limits.maxLag() != null && lag != null && lag > limits.maxLag().toBytes()) {
			reasons.add(name + " lags " + bytes(lag) + ", above postlog.health.max-lag ("
					+ bytes(limits.maxLag().toBytes()) + ")");
		}
		Long retained = slot.retainedBytes(input.position());
		if (retained == null) {
			return;
		}
		if (limits.maxRetained() != null && retained > limits.maxRetained().toBytes()) {
			reasons.add(name + " retains " + bytes(retained) + " of WAL, above postlog.health.max-retained ("
					+ bytes(limits.maxRetained().toBytes()) + ")");
		}
		if (keepSize != null && keepSize > 0 && retained > limits.maxRetainedRatio() * keepSize) {
			reasons.add(name + " retains " + bytes(retained) + " of WAL, " + Math.round(100.0 * retained / keepSize)
					+ "% of max_slot_wal_keep_size (" + bytes(keepSize) + "), above postlog.health.max-retained-ratio ("
					+ limits.maxRetainedRatio() + "); the server invalidates the slot at 100%");
		}
	}

	static @Nullable Long lagBytes(SlotInfo slot, Lsn position) {
		Lsn confirmed = slot.confirmedFlushLsn();
		return (confirmed != null && confirmed.isValid()) ? Math.max(0, position.minus(confirmed)) : null;
	}

	/** Sizes as an operator reads them: {@code 48.0 MB}. */
	static String bytes(long bytes) {
		String[] units = { "B", "kB", "MB", "GB", "TB" };
		double value = bytes;
		int unit = 0;
		while (Math.abs(value) >= 1024 && unit < units.length - 1) {
			value /= 1024;
			unit++;
		}
		return (unit == 0) ? bytes + " B" : String.format(java.util.Locale.ROOT, "%.1f %s", value, units[unit]);
	}

	/**
	 * A failure as health may show it: the class and, for postlog's own exceptions, their
	 * message, which never holds a row value; another library's message might.
	 */
	static String cause(Throwable failure) {
		if (failure instanceof PostlogException) {
			return failure.getClass().getName() + ": " + failure.getMessage();
		}
		return failure.getClass().getName();
	}

	/**
	 * The {@code reading} detail: whether the slot's values are current, how old they are
	 * and when the server was last read.
	 * @param lastContact when the server was last read, {@code null} if never
	 * @param readFailure why the latest reading failed, {@code null} if it succeeded
	 * @param now the time of the health call
	 */
	static Map<String, Object> reading(@Nullable Instant lastContact, @Nullable String readFailure, Instant now) {
		Map<String, Object> reading = new LinkedHashMap<>();
		reading.put("status", (readFailure != null) ? "unavailable" : "available");
		if (readFailure != null) {
			reading.put("reason", readFailure);
		}
		if (lastContact != null) {
			reading.put("age", Duration.between(lastContact, now).truncatedTo(ChronoUnit.MILLIS).toString());
		}
		return reading;
	}

	static String text(@Nullable Duration duration) {
		if (duration == null) {
			return "?";
		}
		return duration.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString().substring(2).toLowerCase();
	}

	/**
	 * What the rules judge.
	 *
	 * @param state the consumer's state, {@code null} when none runs
	 * @param slotName the configured slot
	 * @param slot the slot, {@code null} if missing
	 * @param position the server's WAL position
	 * @param settings the server's settings, {@code null} if not read
	 * @param heartbeat the heartbeats, {@code null} when off
	 * @param snapshotSlot the temporary slot of an initial snapshot being taken while the
	 * slot does not exist yet, else {@code null}
	 * @param readFailure why the slot could not be read just now (the other values are
	 * then from the last reading that succeeded, or absent), else {@code null}
	 */
	record Input(@Nullable ConsumerState state, String slotName, @Nullable SlotInfo slot, Lsn position,
			@Nullable ReplicationSettings settings, @Nullable HeartbeatStatus heartbeat,
			@Nullable SlotInfo snapshotSlot, @Nullable String readFailure) {

		Input(@Nullable ConsumerState state, String slotName, @Nullable SlotInfo slot, Lsn position,
				@Nullable ReplicationSettings settings, @Nullable HeartbeatStatus heartbeat,
				@Nullable SlotInfo snapshotSlot) {
			this(state, slotName, slot, position, settings, heartbeat, snapshotSlot, null);
		}

		Input(@Nullable ConsumerState state, String slotName, @Nullable SlotInfo slot, Lsn position,
				@Nullable ReplicationSettings settings, @Nullable HeartbeatStatus heartbeat) {
			this(state, slotName, slot, position, settings, heartbeat, null);
		}

	}

	/**
	 * The configured limits.
	 *
	 * @param maxLag {@code postlog.health.max-lag}
	 * @param maxRetained {@code postlog.health.max-retained}
	 * @param maxRetainedRatio {@code postlog.health.max-retained-ratio}
	 */
	record Limits(@Nullable DataSize maxLag, @Nullable DataSize maxRetained, double maxRetainedRatio) {
	}

	/**
	 * The outcome.
	 *
	 * @param status UP, UNKNOWN or DOWN
	 * @param reasons why DOWN, empty otherwise
	 */
	record Verdict(Status status, List<String> reasons) {
	}

}
