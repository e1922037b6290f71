package io.postlog.admin;

import java.time.Instant;
import java.util.Objects;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * A replication slot as {@code pg_replication_slots} shows it. Columns the server does
 * not have (older versions) are {@code null}. Immutable.
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
 * of being invalidated (negative once it is past the limit); {@code null} before
 * PostgreSQL 13 or without {@code max_slot_wal_keep_size}
 * @param inactiveSince when the slot was last released by its reader; {@code null} while
 * it is active or before PostgreSQL 17
 * @param conflicting whether a logical slot was invalidated by a conflict with recovery
 * ({@code rows_removed}, {@code wal_level_insufficient}); {@code null} before PostgreSQL
 * 16 and for physical slots
 * @param invalidationReason why the server invalidated the slot ({@code wal_removed},
 * {@code rows_removed}, {@code wal_level_insufficient}, {@code idle_timeout} on 18);
 * {@code null} while it is valid or before PostgreSQL 17
 * @param failover whether the slot is synchronised to standbys; {@code null} before
 * PostgreSQL 17
 * @param synced whether this slot is a copy a standby synchronised from its primary;
 * {@code null} before PostgreSQL 17
 */
public record SlotInfo(String slotName, @Nullable String plugin, String slotType, @Nullable String database,
		boolean temporary, boolean active, @Nullable Integer activePid, @Nullable Lsn restartLsn,
		@Nullable Lsn confirmedFlushLsn, @Nullable String walStatus, @Nullable Long safeWalSize,
		@Nullable Instant inactiveSince, @Nullable Boolean conflicting, @Nullable String invalidationReason,
		@Nullable Boolean failover, @Nullable Boolean synced) {

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
	 * @param inactiveSince when the slot became inactive
	 * @param conflicting whether invalidated by a recovery conflict
	 * @param invalidationReason why the slot was invalidated
	 * @param failover whether the slot fails over
	 * @param synced whether the slot was synchronised from a primary
	 */
	public SlotInfo {
		Objects.requireNonNull(slotName, "slotName");
		Objects.requireNonNull(slotType, "slotType");
	}

	/**
	 * Creates a description with only the columns every server since PostgreSQL 13 has.
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
	public SlotInfo(String slotName, @Nullable String plugin, String slotType, @Nullable String database,
			boolean temporary, boolean active, @Nullable Integer activePid, @Nullable Lsn restartLsn,
			@Nullable Lsn confirmedFlushLsn, @Nullable String walStatus, @Nullable Long safeWalSize) {
		this(slotName, plugin, slotType, database, temporary, active, activePid, restartLsn, confirmedFlushLsn,
				walStatus, safeWalSize, null, null, null, null, null);
	}

	/**
	 * Returns whether the server has invalidated the slot: {@code wal_status = lost}, an
	 * invalidation reason (17+) or a recovery conflict (16+). It can no longer stream and
	 * must be dropped and recreated.
	 * @return {@code true} if the slot is lost
	 */
	public boolean isLost() {
		return "lost".equals(this.walStatus) || this.invalidationReason != null
				|| Boolean.TRUE.equals(this.conflicting);
	}

	/**
	 * Returns whether this is a logical slot.
	 * @return {@code true} for {@code slot_type = logical}
	 */
	public boolean isLogical() {
		return "logical".equals(this.slotType);
	}

	/**
	 * Returns the WAL the slot makes the server keep: bytes from its {@code restart_lsn}
	 * to a position, usually the server's current one.
	 * @param position the server's WAL position
	 * @return the bytes, or {@code null} if the slot reserves no WAL (lost, or a
	 * temporary slot not yet made)
	 */
	public @Nullable Long retainedBytes(Lsn position) {
		Lsn restart = this.restartLsn;
		return (restart != null && restart.isValid()) ? Math.max(0, position.minus(restart)) : null;
	}

}
