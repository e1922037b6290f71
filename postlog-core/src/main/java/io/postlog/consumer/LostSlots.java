package io.postlog.consumer;

import java.sql.SQLException;
import java.util.Optional;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.SlotLoss;
import io.postlog.admin.SlotLostException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acts on a lost slot, never silently (DESIGN.md, "WAL safety and high availability"): at
 * start an invalidated slot, on a reconnect also a missing one (the consumer made sure it
 * existed). The listener hears of it first ({@link ConsumerListener#slotLost}); then, by
 * the {@link LostSlotAction}, the consumer fails with the {@link SlotLostException}, or
 * drops the slot, creates a new one, and logs at ERROR which changes were skipped.
 * <p>
 * A new slot is created as set-up creates a missing one
 * ({@link ReplicationAdmin#ensureSlot}, with failover when configured), so whatever
 * set-up does for a slot it creates applies to a recreated slot too. With an initial
 * snapshot the lost slot is only dropped: a new snapshot creates it, as for a slot that
 * never existed ({@link InitialSnapshot}), and delivers the tables' rows again. Temporary
 * slots are never lost: the stream creates them. Stateless apart from the configuration;
 * thread-safe.
 */
final class LostSlots {

	private static final Logger logger = LoggerFactory.getLogger(LostSlots.class);

	private final ConsumerConfig config;

	LostSlots(ConsumerConfig config) {
		this.config = config;
	}

	/**
	 * Checks the slot before set-up. A missing slot is not lost here: set-up creates it
	 * (or refuses under {@code EXISTING}).
	 * @param admin the set-up connection's admin
	 * @return the loss when the lost slot was dropped to be created again by set-up, else
	 * {@code null}
	 * @throws SlotLostException if the slot is lost and the action is {@code FAIL}
	 */
	@Nullable SlotLostException atStart(ReplicationAdmin admin) {
		if (this.config.temporary()) {
			return null;
		}
		Optional<SlotLostException> found = SlotLoss.check(admin, this.config.slotName(), false, null);
		if (found.isEmpty()) {
			return null;
		}
		SlotLostException loss = found.get();
		if (act(loss) == LostSlotAction.FAIL) {
			throw loss;
		}
		dropLost(admin);
		return loss;
	}

	/**
	 * Logs, once the new slot exists, that the changes in between were skipped.
	 * @param loss the loss
	 * @param lastAcknowledged the last position known to be acknowledged
	 * @param slot the new slot
	 */
	void recreated(SlotLostException loss, @Nullable Lsn lastAcknowledged, SlotInfo slot) {
		logger.error(
				"Replication slot '{}' was created again after it was lost ({}): the changes committed after {} and "
						+ "before {} are SKIPPED and will never be delivered; rebuild what depends on them from the "
						+ "tables",
				this.config.slotName(), loss.reason(),
				(lastAcknowledged != null) ? lastAcknowledged : "its last confirmed position",
				slot.confirmedFlushLsn());
	}

	/**
	 * Logs, once a lost slot was dropped for a new initial snapshot to create it, what
	 * that delivers and what it cannot.
	 * @param loss the loss
	 */
	void snapshotAgain(SlotLostException loss) {
		logger.error("Replication slot '{}' was lost ({}) and is created again by a new initial snapshot: every row "
				+ "is delivered again as a SNAPSHOT change, but rows deleted after {} are never delivered as DELETEs; "
				+ "a read model must start over when the snapshot starts", this.config.slotName(), loss.reason(),
				(loss.lastConfirmedLsn() != null) ? loss.lastConfirmedLsn() : "its last confirmed position");
	}

	/**
	 * Decides, after a stream failed to open or ended with a failure, whether the slot is
	 * lost, and acts on it.
	 * @param failure the failure
	 * @param acknowledged this consumer's acknowledged position
	 * @return {@code null} when the slot is not lost (or cannot be checked now: the
	 * failure is then handled as any other); else the loss and, under {@code RECREATE},
	 * the new slot
	 */
	@Nullable Found afterFailure(Throwable failure, Lsn acknowledged) {
		AdminConnections admin = this.config.admin();
		SQLException error = sqlCause(failure);
		if (admin == null || this.config.temporary() || error == null || !SlotLoss.mayMeanLost(error)) {
			return null;
		}
		Lsn last = acknowledged.isValid() ? acknowledged : null;
		Optional<SlotLostException> found;
		try {
			found = admin.apply("Checking slot " + this.config.slotName(), (connection) -> SlotLoss
				.check(new ReplicationAdmin(connection), this.config.slotName(), true, last));
		}
		catch (PostlogException ex) {
			logger.debug("Could not check whether slot {} is lost: {}", this.config.slotName(), ex.getMessage());
			return null;
		}
		if (found.isEmpty()) {
			return null;
		}
		SlotLostException seen = found.get();
		SlotLostException loss = new SlotLostException(seen.slotName(), seen.reason(), seen.walStatus(),
				seen.invalidationReason(), (last != null) ? last : seen.lastConfirmedLsn(), failure);
		if (act(loss) == LostSlotAction.FAIL) {
			return new Found(loss, null, false);
		}
		if (this.config.snapshot() != null) {
			admin.apply("Dropping lost slot " + this.config.slotName(), (connection) -> {
				dropLost(new ReplicationAdmin(connection));
				return true;
			});
			snapshotAgain(loss);
			return new Found(loss, null, true);
		}
		SlotInfo slot = admin.apply("Recreating slot " + this.config.slotName(), (connection) -> {
			ReplicationAdmin replication = new ReplicationAdmin(connection);
			dropLost(replication);
			return replication.ensureSlot(this.config.slotName(), this.config.slotLifecycle(),
					this.config.decoder().plugin(), this.config.walSafety().failover());
		});
		recreated(loss, loss.lastConfirmedLsn(), slot);
		return new Found(loss, slot, false);
	}

	private LostSlotAction act(SlotLostException loss) {
		LostSlotAction action = this.config.walSafety().lostSlotAction();
		this.config.listener().slotLost(loss, action);
		if (action == LostSlotAction.RECREATE) {
			logger.error("{}. The lost-slot action is RECREATE (postlog.slot.on-lost=recreate): dropping it and "
					+ "creating a new slot; the changes in between are skipped", loss.getMessage());
		}
		return action;
	}

	/**
	 * Drops the slot only while it is still lost: another replica may have recreated it
	 * since it was checked.
	 */
	private void dropLost(ReplicationAdmin admin) {
		SlotInfo slot = admin.slot(this.config.slotName()).orElse(null);
		if (slot != null && slot.isLost()) {
			admin.dropSlot(this.config.slotName());
		}
	}

	private static @Nullable SQLException sqlCause(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql) {
				return sql;
			}
		}
		return null;
	}

	/**
	 * A lost slot and what was done about it.
	 *
	 * @param loss the loss, with the failure that revealed it as its cause
	 * @param recreated the new slot under {@code RECREATE}; {@code null} under
	 * {@code FAIL}, and when a new snapshot is to create it
	 * @param snapshotAgain whether the lost slot was dropped for a new initial snapshot
	 * to create it
	 */
	record Found(SlotLostException loss, @Nullable SlotInfo recreated, boolean snapshotAgain) {

	}

}
