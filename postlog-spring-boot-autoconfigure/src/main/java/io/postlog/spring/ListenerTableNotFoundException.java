package io.postlog.spring;

import io.postlog.PostlogException;
import io.postlog.TableId;

/**
 * A listener (or {@code postlog.tables}) names a table that does not exist in the
 * application's database. Raised at start-up, before the slot or publication is touched.
 */
public class ListenerTableNotFoundException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String readers;

	private final transient TableId table;

	/**
	 * Creates an exception.
	 * @param readers who wants the table: {@code listener 'id'} or {@code postlog.tables}
	 * @param table the missing table
	 */
	public ListenerTableNotFoundException(String readers, TableId table) {
		super(capitalized(readers) + " reads table " + table + ", which does not exist");
		this.readers = readers;
		this.table = table;
	}

	/**
	 * Returns who wants the table.
	 * @return for example {@code listener 'OrderEvents.onOrder'}
	 */
	public String readers() {
		return this.readers;
	}

	/**
	 * Returns the missing table.
	 * @return the table
	 */
	public TableId table() {
		return this.table;
	}

	static String capitalized(String text) {
		return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
	}

}
