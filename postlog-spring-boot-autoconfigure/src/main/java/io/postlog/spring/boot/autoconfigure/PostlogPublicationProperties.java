package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.PublicationMode;

/**
 * Publication settings. Bound under {@code postlog.publication}, a group of
 * {@link PostlogProperties}; not thread-safe, bound once at start-up.
 */
public class PostlogPublicationProperties {

	/**
	 * Name of the publication to stream.
	 */
	private String name = "postlog";

	/**
	 * Whether the publication must exist, is created if missing, or is kept in sync with
	 * the tables.
	 */
	private PublicationMode mode = PublicationMode.CREATE_IF_MISSING;

	public String getName() {
		return this.name;
	}

	public void setName(String name) {
		this.name = name;
	}

	public PublicationMode getMode() {
		return this.mode;
	}

	public void setMode(PublicationMode mode) {
		this.mode = mode;
	}

}
