package io.postlog.admin;

import java.util.Locale;

/**
 * Who creates and who drops the replication slot ({@code postlog.slot.lifecycle}). Only
 * {@link #TEMPORARY} and {@link #OWNED} slots are ever dropped by postlog.
 */
public enum SlotLifecycle {

	/** The slot must exist already; postlog neither creates nor drops it. */
	EXISTING,

	/** postlog creates the slot if it is missing and never drops it. */
	CREATE_IF_MISSING,

	/**
	 * The stream's own connection creates a temporary slot, which the server drops when
	 * the connection ends; nothing survives a restart.
	 */
	TEMPORARY,

	/** postlog creates the slot if it is missing and drops it when it stops. */
	OWNED;

	/**
	 * Parses a property value such as {@code create-if-missing} (case and {@code -} /
	 * {@code _} are not significant).
	 * @param value the property value
	 * @return the lifecycle
	 * @throws IllegalArgumentException if the value names no lifecycle
	 */
	public static SlotLifecycle fromProperty(String value) {
		String name = value.trim().replace('-', '_').toUpperCase(Locale.ROOT);
		for (SlotLifecycle lifecycle : values()) {
			if (lifecycle.name().equals(name)) {
				return lifecycle;
			}
		}
		throw new IllegalArgumentException(
				"Unknown slot lifecycle '" + value + "' (expected existing, create-if-missing, temporary or owned)");
	}

}
