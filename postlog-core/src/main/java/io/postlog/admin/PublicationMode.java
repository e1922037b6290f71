package io.postlog.admin;

import java.util.Locale;

/**
 * How postlog treats the publication ({@code postlog.publication.mode}). postlog never
 * drops a publication or removes tables from it.
 */
public enum PublicationMode {

	/** The publication must exist already; postlog does not change it. */
	EXISTING,

	/**
	 * postlog creates the publication if it is missing and leaves an existing one alone.
	 */
	CREATE_IF_MISSING,

	/** Like {@link #CREATE_IF_MISSING}, and adds the tables an existing one lacks. */
	SYNC;

	/**
	 * Parses a property value such as {@code create-if-missing} (case and {@code -} /
	 * {@code _} are not significant).
	 * @param value the property value
	 * @return the mode
	 * @throws IllegalArgumentException if the value names no mode
	 */
	public static PublicationMode fromProperty(String value) {
		String name = value.trim().replace('-', '_').toUpperCase(Locale.ROOT);
		for (PublicationMode mode : values()) {
			if (mode.name().equals(name)) {
				return mode;
			}
		}
		throw new IllegalArgumentException(
				"Unknown publication mode '" + value + "' (expected existing, create-if-missing or sync)");
	}

}
