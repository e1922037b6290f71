package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.LostSlotAction;
import io.postlog.admin.SlotLifecycle;

/**
 * Replication slot settings. Bound under {@code postlog.slot}, a group of
 * {@link PostlogProperties}; not thread-safe, bound once at start-up.
 */
public class PostlogSlotProperties {

	/**
	 * Name of the replication slot ([a-z0-9_], at most 63 characters).
	 */
	private String name = "postlog";

	/**
	 * How the slot is created and whether postlog drops it.
	 */
	private SlotLifecycle lifecycle = SlotLifecycle.CREATE_IF_MISSING;

	/**
	 * Whether to create the slot with failover enabled, so that standbys running with
	 * sync_replication_slots keep a copy of it (PostgreSQL 17+; refused before).
	 */
	private boolean failover;

	/**
	 * What to do when the slot is found lost (invalidated by the server, or missing where
	 * it existed): fail, or drop it, create a new one and skip the changes in between.
	 */
	private LostSlotAction onLost = LostSlotAction.FAIL;

	public String getName() {
		return this.name;
	}

	public boolean isFailover() {
		return this.failover;
	}

	public void setFailover(boolean failover) {
		this.failover = failover;
	}

	public LostSlotAction getOnLost() {
		return this.onLost;
	}

	public void setOnLost(LostSlotAction onLost) {
		this.onLost = onLost;
	}

	public void setName(String name) {
		this.name = name;
	}

	public SlotLifecycle getLifecycle() {
		return this.lifecycle;
	}

	public void setLifecycle(SlotLifecycle lifecycle) {
		this.lifecycle = lifecycle;
	}

}
