package io.postlog.admin;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The server settings that decide whether replication slots are safe, and how many slots
 * and WAL senders are in use, read at one moment. A setting the server version does not
 * have is {@code null}. Immutable.
 *
 * @param serverVersion the {@code server_version_num}
 * @param inRecovery whether the server is a standby ({@code pg_is_in_recovery()})
 * @param walLevel {@code wal_level}
 * @param maxReplicationSlots {@code max_replication_slots}
 * @param usedReplicationSlots slots of every kind and database that exist now
 * @param maxWalSenders {@code max_wal_senders}
 * @param usedWalSenders WAL sender processes running now (physical and logical, streaming
 * or not)
 * @param maxSlotWalKeepSize {@code max_slot_wal_keep_size} in bytes (13+); {@code null}
 * when it is {@code -1} (unbounded) or the server is older
 * @param maxWalSize {@code max_wal_size} in bytes: past it a slot's {@code wal_status}
 * becomes {@code extended}, then {@code unreserved}
 * @param walSenderTimeout {@code wal_sender_timeout}; zero when disabled
 * @param idleReplicationSlotTimeout {@code idle_replication_slot_timeout} (18+); zero
 * when off
 * @param synchronizedStandbySlots {@code synchronized_standby_slots} (17+), empty when
 * unset
 * @param syncReplicationSlots {@code sync_replication_slots} (17+)
 * @param hotStandbyFeedback {@code hot_standby_feedback}
 */
public record ReplicationSettings(int serverVersion, boolean inRecovery, String walLevel, int maxReplicationSlots,
		int usedReplicationSlots, int maxWalSenders, int usedWalSenders, @Nullable Long maxSlotWalKeepSize,
		long maxWalSize, Duration walSenderTimeout, @Nullable Duration idleReplicationSlotTimeout,
		@Nullable String synchronizedStandbySlots, @Nullable Boolean syncReplicationSlots, boolean hotStandbyFeedback) {

	/**
	 * Creates the settings.
	 * @param serverVersion the server version
	 * @param inRecovery whether a standby
	 * @param walLevel the WAL level
	 * @param maxReplicationSlots the slot limit
	 * @param usedReplicationSlots the slots in use
	 * @param maxWalSenders the WAL sender limit
	 * @param usedWalSenders the WAL senders in use
	 * @param maxSlotWalKeepSize the bound on WAL a slot may retain
	 * @param maxWalSize the WAL size that triggers a checkpoint
	 * @param walSenderTimeout the WAL sender timeout
	 * @param idleReplicationSlotTimeout the idle slot timeout
	 * @param synchronizedStandbySlots the standby slots logical senders wait for
	 * @param syncReplicationSlots whether a standby synchronises failover slots
	 * @param hotStandbyFeedback whether a standby sends feedback
	 */
	public ReplicationSettings {
		Objects.requireNonNull(walLevel, "walLevel");
		Objects.requireNonNull(walSenderTimeout, "walSenderTimeout");
	}

	/**
	 * Returns how many more replication slots can be created.
	 * @return {@code max_replication_slots} minus the slots that exist, at least zero
	 */
	public int freeReplicationSlots() {
		return Math.max(0, this.maxReplicationSlots - this.usedReplicationSlots);
	}

	/**
	 * Returns how many more WAL senders can start.
	 * @return {@code max_wal_senders} minus the running ones, at least zero
	 */
	public int freeWalSenders() {
		return Math.max(0, this.maxWalSenders - this.usedWalSenders);
	}

	/**
	 * Returns whether logical walsenders wait for the standbys named in
	 * {@code synchronized_standby_slots} before sending changes (17+), so that a failover
	 * slot is never ahead of what the standby has.
	 * @return {@code true} if {@code synchronized_standby_slots} is set
	 */
	public boolean waitsForStandbys() {
		return this.synchronizedStandbySlots != null && !this.synchronizedStandbySlots.isBlank();
	}

}
