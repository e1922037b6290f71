package io.postlog.admin;

import java.sql.SQLException;
import java.util.Optional;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * Decides whether a slot is lost, from what {@code pg_replication_slots} shows. The
 * server's errors only hint at it (their SQLStates are generic and their texts are
 * translated), so a stream error {@link #mayMeanLost may mean a loss} and the slot is
 * then looked up and {@linkplain #detect decided} here. Stateless and thread-safe.
 */
public final class SlotLoss {

	private SlotLoss() {
	}

	/**
	 * Decides whether a slot is lost.
	 * @param slotName the slot's name
	 * @param slot the slot as looked up, or {@code null} if it does not exist
	 * @param shouldExist whether the slot must exist: the consumer streamed from it
	 * before, or a checkpoint records it; a slot missing at first start is not lost
	 * @param lastConfirmed the last position known to be confirmed, for the message
	 * @return the loss, or empty if the slot can stream (or is legitimately absent)
	 */
	public static Optional<SlotLostException> detect(String slotName, @Nullable SlotInfo slot, boolean shouldExist,
			@Nullable Lsn lastConfirmed) {
		if (slot == null) {
			return shouldExist ? Optional
				.of(new SlotLostException(slotName, SlotLostException.Reason.MISSING, null, null, lastConfirmed, null))
					: Optional.empty();
		}
		if (!slot.isLost()) {
			return Optional.empty();
		}
		Lsn confirmed = (slot.confirmedFlushLsn() != null) ? slot.confirmedFlushLsn() : lastConfirmed;
		return Optional.of(new SlotLostException(slotName, SlotLostException.Reason.INVALIDATED,
				(slot.walStatus() != null) ? slot.walStatus() : "lost", slot.invalidationReason(), confirmed, null));
	}

	/**
	 * Looks the slot up and decides whether it is lost.
	 * @param admin an admin on the slot's database
	 * @param slotName the slot's name
	 * @param shouldExist whether the slot must exist
	 * @param lastConfirmed the last position known to be confirmed
	 * @return the loss, or empty
	 */
	public static Optional<SlotLostException> check(ReplicationAdmin admin, String slotName, boolean shouldExist,
			@Nullable Lsn lastConfirmed) {
		return detect(slotName, admin.slot(slotName).orElse(null), shouldExist, lastConfirmed);
	}

	/**
	 * Returns whether a server error of {@code START_REPLICATION} or of decoding may mean
	 * the slot is lost: {@code 55000} ("can no longer get changes from replication slot",
	 * an invalidated slot), {@code 42704} (the slot does not exist) or {@code 58P01} (a
	 * WAL segment the slot needs was removed). Look the slot up with {@link #check} to
	 * decide.
	 * @param error the server's error
	 * @return {@code true} if the slot should be looked up
	 */
	public static boolean mayMeanLost(SQLException error) {
		for (Throwable cause = error; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sqlException && (PgErrors.isObjectNotInPrerequisiteState(sqlException)
					|| PgErrors.isUndefinedObject(sqlException) || PgErrors.isUndefinedFile(sqlException))) {
				return true;
			}
		}
		return false;
	}

}
