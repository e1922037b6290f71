package io.postlog.consumer;

import io.postlog.Lsn;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotInfo;
import io.postlog.consumer.delivery.AckWindow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares the slot's {@code confirmed_flush_lsn} with the consumer's acknowledged
 * position after each stream start. When the consumer takes a slot over (first start,
 * after standby) the slot's position is the baseline. When it only reconnected, a slot
 * found past the acknowledged position was advanced by something else: the transactions
 * in between are gone for this consumer. That is logged at WARN with both positions and
 * reported to the listener, and delivery goes on from the slot's position: failing would
 * not bring the transactions back, and stopping every replica would not either.
 */
final class SlotPositionCheck {

	private static final Logger logger = LoggerFactory.getLogger(SlotPositionCheck.class);

	private final AdminConnections admin;

	private final String slotName;

	private final AckWindow acks;

	private final ConsumerListener listener;

	SlotPositionCheck(AdminConnections admin, String slotName, AckWindow acks, ConsumerListener listener) {
		this.admin = admin;
		this.slotName = slotName;
		this.acks = acks;
		this.listener = listener;
	}

	void verify(boolean tookOver) {
		Lsn confirmed = this.admin
			.apply("Reading slot " + this.slotName,
					(connection) -> new ReplicationAdmin(connection).slot(this.slotName))
			.map(SlotInfo::confirmedFlushLsn)
			.orElse(null);
		if (confirmed == null) {
			return;
		}
		Lsn acked = this.acks.acked();
		if (!tookOver && acked.isValid() && confirmed.isAfter(acked)) {
			logger.warn(
					"Slot {} was advanced by something else: its confirmed_flush_lsn is {} but this consumer "
							+ "acknowledged only {}; the transactions in between were not delivered to it",
					this.slotName, confirmed, acked);
			this.listener.slotAdvanced(acked, confirmed);
		}
		this.acks.baseline(confirmed);
	}

}
