package io.postlog.spring;

import io.postlog.PostlogException;
import io.postlog.TableId;

/**
 * A table would be published for updates and deletes without a usable replica identity:
 * PostgreSQL would then refuse the application's own {@code UPDATE} and {@code DELETE} on
 * it, and a listener could not tell which row changed.
 */
public class ReplicaIdentityMissingException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String readers;

	private final transient TableId table;

	private final String identity;

	/**
	 * Creates an exception.
	 * @param readers who wants the table: {@code listener 'id'} or {@code postlog.tables}
	 * @param table the table
	 * @param identity what the table has instead, for example {@code no primary key}
	 */
	public ReplicaIdentityMissingException(String readers, TableId table, String identity) {
		super(ListenerTableNotFoundException.capitalized(readers) + " reads table " + table
				+ ", which has no usable replica identity (" + identity + ")");
		this.readers = readers;
		this.table = table;
		this.identity = identity;
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
	 * Returns what the table has instead of a usable replica identity.
	 * @return the description
	 */
	public String identity() {
		return this.identity;
	}

}
