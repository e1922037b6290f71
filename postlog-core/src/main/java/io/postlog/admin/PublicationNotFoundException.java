package io.postlog.admin;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * A publication that must exist does not: {@code postlog.publication.mode=existing} found
 * none, or the server reported it missing while streaming (it was dropped).
 */
public class PublicationNotFoundException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String publicationName;

	/**
	 * Creates an exception.
	 * @param publicationName the missing publication
	 */
	public PublicationNotFoundException(String publicationName) {
		this(publicationName, null);
	}

	/**
	 * Creates an exception for a publication the server reported missing.
	 * @param publicationName the missing publication
	 * @param cause the server's error, if the server reported it
	 */
	public PublicationNotFoundException(String publicationName, @Nullable Throwable cause) {
		super("Publication '" + publicationName + "' does not exist", cause);
		this.publicationName = publicationName;
	}

	/**
	 * Returns the missing publication's name.
	 * @return the publication name
	 */
	public String publicationName() {
		return this.publicationName;
	}

}
