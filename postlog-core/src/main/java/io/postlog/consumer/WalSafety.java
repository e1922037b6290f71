package io.postlog.consumer;

import java.util.Objects;

import io.postlog.TableId;
import io.postlog.admin.LostSlotAction;
import io.postlog.heartbeat.HeartbeatMonitor;
import org.jspecify.annotations.Nullable;

/**
 * What a consumer does to keep its slot safe (DESIGN.md, "WAL safety and high
 * availability"): whether the slot it creates fails over to standbys, what it does when
 * the slot is found lost, and whom it tells of the heartbeats it reads back. Immutable.
 *
 * @param failover whether a slot the consumer creates is created with failover
 * (PostgreSQL 17+)
 * @param lostSlotAction what to do when the slot is found lost, at start or on a
 * reconnect
 * @param heartbeatMonitor told of every heartbeat that comes back and of every stream
 * start, or {@code null} when heartbeats are not tracked
 * @param heartbeatTable the heartbeat table, whose rows are the heartbeats before
 * PostgreSQL 14; {@code null} for the default (and, without an admin connection to read
 * the server version from, for heartbeats as logical messages)
 */
record WalSafety(boolean failover, LostSlotAction lostSlotAction, @Nullable HeartbeatMonitor heartbeatMonitor,
		@Nullable TableId heartbeatTable) {

	WalSafety {
		Objects.requireNonNull(lostSlotAction, "lostSlotAction");
	}

}
