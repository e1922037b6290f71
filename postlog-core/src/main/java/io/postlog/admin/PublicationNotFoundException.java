package io.postlog.admin;

import io.postlog.PostlogException;

/**
 * A publication that must exist does not ({@code postlog.publication.mode=existing}).
 */
public class PublicationNotFoundException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String publicationName;

	/**
	 * Creates an exception.
	 * @param publicationName the missing publication
	 */
	public PublicationNotFoundException(String publicationName) {
		super("Publication '" + publicationName + "' does not exist");
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
