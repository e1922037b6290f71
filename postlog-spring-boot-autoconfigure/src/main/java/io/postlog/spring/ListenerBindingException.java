package io.postlog.spring;

import io.postlog.PostlogException;
import io.postlog.TableId;

/**
 * A record (or constructor-bound class) listener cannot be bound strictly from a table's
 * rows: a component matches no column, or a primitive component's column can be
 * {@code NULL} or is absent from the rows the listener receives. Raised at start-up once
 * the table's columns are known.
 */
public class ListenerBindingException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String listenerId;

	private final transient TableId table;

	private final String component;

	/**
	 * Creates an exception.
	 * @param listenerId the listener's id
	 * @param table the table
	 * @param type the bound type
	 * @param component the component that cannot be bound
	 * @param reason why, without values
	 */
	public ListenerBindingException(String listenerId, TableId table, String type, String component, String reason) {
		super("Listener '" + listenerId + "' cannot bind table " + table + " to " + type + ": component '" + component
				+ "' " + reason);
		this.listenerId = listenerId;
		this.table = table;
		this.component = component;
	}

	/**
	 * Returns the listener's id.
	 * @return the id
	 */
	public String listenerId() {
		return this.listenerId;
	}

	/**
	 * Returns the table.
	 * @return the table
	 */
	public TableId table() {
		return this.table;
	}

	/**
	 * Returns the component that cannot be bound.
	 * @return its name
	 */
	public String component() {
		return this.component;
	}

}
