package io.postlog.spring;

import io.postlog.PostlogException;
import io.postlog.TableId;

/**
 * A listener reads a table that the publication, which exists and which postlog is not to
 * change ({@code postlog.publication.mode} {@code existing} or
 * {@code create-if-missing}), does not publish: nothing of it would ever arrive.
 */
public class TableNotPublishedException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String readers;

	private final transient TableId table;

	private final String publication;

	/**
	 * Creates an exception.
	 * @param readers who wants the table: {@code listener 'id'} or {@code postlog.tables}
	 * @param table the table
	 * @param publication the publication
	 */
	public TableNotPublishedException(String readers, TableId table, String publication) {
		super(ListenerTableNotFoundException.capitalized(readers) + " reads table " + table + ", but publication '"
				+ publication + "' does not publish it");
		this.readers = readers;
		this.table = table;
		this.publication = publication;
	}

	/**
	 * Returns who wants the table.
	 * @return for example {@code listener 'OrderEvents.onOrder'}
	 */
	public String readers() {
		return this.readers;
	}

	/**
	 * Returns the table.
	 * @return the table
	 */
	public TableId table() {
		return this.table;
	}

	/**
	 * Returns the publication.
	 * @return its name
	 */
	public String publication() {
		return this.publication;
	}

}
