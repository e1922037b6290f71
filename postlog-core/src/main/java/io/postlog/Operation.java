package io.postlog;

/**
 * What a {@link Change} did to its table.
 */
public enum Operation {

	/** A row was inserted; {@link Change#after()} holds it. */
	INSERT,

	/**
	 * A row was updated; {@link Change#after()} holds the new row and
	 * {@link Change#before()} the old one when the server sent it.
	 */
	UPDATE,

	/** A row was deleted; {@link Change#before()} holds its replica identity. */
	DELETE,

	/** The table was truncated; neither row is present. */
	TRUNCATE,

	/** A row read by the initial snapshot; {@link Change#after()} holds it. */
	SNAPSHOT

}
