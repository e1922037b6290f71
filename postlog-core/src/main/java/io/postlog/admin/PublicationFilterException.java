package io.postlog.admin;

import io.postlog.PostlogException;
import io.postlog.TableId;
import org.jspecify.annotations.Nullable;

/**
 * A table's configured filter (row filter or column list) was refused at start-up: the
 * server rejected it, it would make the table's updates or deletes fail, it cannot be
 * published as asked, or the existing publication publishes the table with another
 * filter. The message names the table and the filter, never a row value.
 */
public class PublicationFilterException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final TableId table;

	private final String filter;

	/**
	 * Creates an exception.
	 * @param table the table
	 * @param filter the configured filter
	 * @param reason why it is refused, with the fix where there is one
	 * @param cause the server's error, or {@code null}
	 */
	public PublicationFilterException(TableId table, TableFilter filter, String reason, @Nullable Throwable cause) {
		super("Filter of table " + table + " (" + filter + ") is refused: " + reason, cause);
		this.table = table;
		this.filter = filter.toString();
	}

	/**
	 * Returns the table whose filter was refused.
	 * @return the table
	 */
	public TableId table() {
		return this.table;
	}

	/**
	 * Returns the refused filter, as text.
	 * @return the filter
	 */
	public String filter() {
		return this.filter;
	}

}
