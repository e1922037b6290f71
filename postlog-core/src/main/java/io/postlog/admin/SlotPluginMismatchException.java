package io.postlog.admin;

import org.jspecify.annotations.Nullable;

/**
 * An existing slot was made for another output plugin or another database than the one
 * postlog streams ({@code pgoutput} in the connection's database).
 */
public class SlotPluginMismatchException extends SlotConflictException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param existing the slot found on the server
	 * @param expectedPlugin the plugin postlog needs
	 * @param expectedDatabase the database postlog is connected to
	 */
	public SlotPluginMismatchException(SlotInfo existing, String expectedPlugin, String expectedDatabase) {
		super("Replication slot '" + existing.slotName() + "' uses plugin " + describe(existing.plugin())
				+ " in database " + describe(existing.database()) + ", but postlog needs plugin '" + expectedPlugin
				+ "' in database '" + expectedDatabase + "'; use another slot name or drop the slot", existing);
	}

	private static String describe(@Nullable String value) {
		return (value != null) ? "'" + value + "'" : "(none)";
	}

}
