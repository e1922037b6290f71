package io.postlog.admin;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * The slot holds changes from before its publication existed. pgoutput reads the
 * publication as of each change it decodes, and up to PostgreSQL 17 a change from a time
 * the publication did not exist stops decoding with "publication does not exist"
 * (SQLState {@code 42704}) on every attempt, so the slot can never stream past it.
 */
public class PublicationCreatedAfterSlotException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String slotName;

	private final String publicationName;

	private final @Nullable Lsn confirmedFlushLsn;

	/**
	 * Creates an exception.
	 * @param slotName the slot
	 * @param publicationName the publication
	 * @param confirmedFlushLsn the slot's confirmed position, where decoding starts
	 * @param cause the server's decoding error
	 */
	public PublicationCreatedAfterSlotException(String slotName, String publicationName,
			@Nullable Lsn confirmedFlushLsn, @Nullable Throwable cause) {
		super("Replication slot '" + slotName + "' holds changes after " + confirmedFlushLsn
				+ " from before publication '" + publicationName
				+ "' existed; decoding them fails with 'publication does not exist', so the slot cannot stream", cause);
		this.slotName = slotName;
		this.publicationName = publicationName;
		this.confirmedFlushLsn = confirmedFlushLsn;
	}

	/**
	 * Returns the slot.
	 * @return the slot name
	 */
	public String slotName() {
		return this.slotName;
	}

	/**
	 * Returns the publication.
	 * @return the publication name
	 */
	public String publicationName() {
		return this.publicationName;
	}

	/**
	 * Returns the slot's confirmed position.
	 * @return the position, or {@code null} if unknown
	 */
	public @Nullable Lsn confirmedFlushLsn() {
		return this.confirmedFlushLsn;
	}

}
