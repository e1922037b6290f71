package io.postlog.admin;

import java.util.Objects;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * A replication slot as {@code pg_replication_slots} shows it. Immutable.
 *
 * @param slotName the slot's name
 * @param plugin the output plugin, {@code null} for physical slots
 * @param slotType {@code logical} or {@code physical}
 * @param database the database a logical slot decodes, {@code null} for physical slots
 * @param temporary whether the slot ends with its session
 * @param active whether a process is streaming from it now
 * @param activePid that process, or {@code null}
 * @param restartLsn the oldest WAL the slot retains, {@code null} if none is reserved
 * (for example once invalidated)
 * @param confirmedFlushLsn the position the consumer acknowledged, {@code null} for
 * physical slots
 * @param walStatus {@code reserved}, {@code extended}, {@code unreserved} or
 * {@code lost}; {@code null} before PostgreSQL 13
 * @param safeWalSize bytes of WAL that can still be written before the slot is in danger
 * of being invalidated; {@code null} before PostgreSQL 13 or without
 * {@code max_slot_wal_keep_size}
 */
public record SlotInfo(String slotName, @Nullable String plugin, String slotType, @Nullable String database,
		boolean temporary, boolean active, @Nullable Integer activePid, @Nullable Lsn restartLsn,
		@Nullable Lsn confirmedFlushLsn, @Nullable String walStatus, @Nullable Long safeWalSize) {

	/**
	 * Creates a slot description.
	 * @param slotName the name
	 * @param plugin the plugin
	 * @param slotType the type
	 * @param database the database
	 * @param temporary whether temporary
	 * @param active whether active
	 * @param activePid the active process
	 * @param restartLsn the restart position
	 * @param confirmedFlushLsn the confirmed position
	 * @param walStatus the WAL status
	 * @param safeWalSize the safe WAL size
	 */
	public SlotInfo {
		Objects.requireNonNull(slotName, "slotName");
		Objects.requireNonNull(slotType, "slotType");
	}

	/**
	 * Returns whether the server has invalidated the slot ({@code wal_status = lost}): it
	 * can no longer stream and must be dropped and recreated.
	 * @return {@code true} if the slot is lost
	 */
	public boolean isLost() {
		return "lost".equals(this.walStatus);
	}

}
