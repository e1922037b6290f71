package io.postlog.admin;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * A replication slot postlog streams from can no longer stream: the server invalidated it
 * ({@code wal_status = lost}, an {@code invalidation_reason}), or it is missing where it
 * should exist (dropped, or the server failed over to a standby that had no copy). The
 * changes after its last confirmed position are gone for logical decoding. postlog never
 * recreates such a slot silently.
 */
public class SlotLostException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String slotName;

	private final Reason reason;

	private final @Nullable String walStatus;

	private final @Nullable String invalidationReason;

	private final @Nullable Lsn lastConfirmedLsn;

	/**
	 * Creates an exception.
	 * @param slotName the slot
	 * @param reason whether the slot is invalidated or missing
	 * @param walStatus the slot's {@code wal_status}, if the server has it
	 * @param invalidationReason the slot's {@code invalidation_reason} (17+)
	 * @param lastConfirmedLsn the last position known to be confirmed, if any
	 * @param cause the server's error that revealed the loss, if any
	 */
	public SlotLostException(String slotName, Reason reason, @Nullable String walStatus,
			@Nullable String invalidationReason, @Nullable Lsn lastConfirmedLsn, @Nullable Throwable cause) {
		super(message(slotName, reason, walStatus, invalidationReason, lastConfirmedLsn), cause);
		this.slotName = slotName;
		this.reason = reason;
		this.walStatus = walStatus;
		this.invalidationReason = invalidationReason;
		this.lastConfirmedLsn = lastConfirmedLsn;
	}

	private static String message(String slotName, Reason reason, @Nullable String walStatus,
			@Nullable String invalidationReason, @Nullable Lsn lastConfirmedLsn) {
		StringBuilder message = new StringBuilder("Replication slot '").append(slotName).append("' is lost: ");
		if (reason == Reason.INVALIDATED) {
			message.append("the server invalidated it (wal_status=").append(walStatus);
			if (invalidationReason != null) {
				message.append(", invalidation_reason=").append(invalidationReason);
			}
			message.append(')');
		}
		else {
			message.append("it does not exist although it did before (dropped, or the server failed over to a "
					+ "standby without a synchronised copy)");
		}
		message.append("; changes after ")
			.append((lastConfirmedLsn != null) ? lastConfirmedLsn : "its last confirmed position")
			.append(" can no longer be streamed");
		return message.toString();
	}

	/**
	 * Returns the lost slot's name.
	 * @return the slot name
	 */
	public String slotName() {
		return this.slotName;
	}

	/**
	 * Returns whether the slot was invalidated or is missing.
	 * @return the reason
	 */
	public Reason reason() {
		return this.reason;
	}

	/**
	 * Returns the slot's {@code wal_status} when it was found invalidated.
	 * @return the status, or {@code null} if missing or before PostgreSQL 13
	 */
	public @Nullable String walStatus() {
		return this.walStatus;
	}

	/**
	 * Returns the slot's {@code invalidation_reason} (PostgreSQL 17+).
	 * @return {@code wal_removed}, {@code rows_removed}, {@code wal_level_insufficient},
	 * {@code idle_timeout}, or {@code null}
	 */
	public @Nullable String invalidationReason() {
		return this.invalidationReason;
	}

	/**
	 * Returns the last position known to be confirmed: changes after it were not seen.
	 * @return the position, or {@code null} if unknown
	 */
	public @Nullable Lsn lastConfirmedLsn() {
		return this.lastConfirmedLsn;
	}

	/**
	 * How a slot was lost.
	 */
	public enum Reason {

		/** The server invalidated the slot; it still exists but cannot stream. */
		INVALIDATED,

		/** The slot does not exist although it should. */
		MISSING

	}

}
