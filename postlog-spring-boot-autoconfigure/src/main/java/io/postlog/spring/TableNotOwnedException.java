package io.postlog.spring;

import io.postlog.PostlogException;
import io.postlog.TableId;

/**
 * postlog is to add a table to its publication, but the application's role does not own
 * it: PostgreSQL lets only a table's owner (or a member of the owning role) publish it.
 */
public class TableNotOwnedException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final transient TableId table;

	private final String owner;

	private final String role;

	private final String publication;

	/**
	 * Creates an exception.
	 * @param table the table
	 * @param owner the role that owns it
	 * @param role the application's role
	 * @param publication the publication postlog is to add it to
	 */
	public TableNotOwnedException(TableId table, String owner, String role, String publication) {
		super("Role '" + role + "' does not own table " + table + " (its owner is '" + owner
				+ "'), so it cannot add it to publication '" + publication + "'");
		this.table = table;
		this.owner = owner;
		this.role = role;
		this.publication = publication;
	}

	/**
	 * Returns the table.
	 * @return the table
	 */
	public TableId table() {
		return this.table;
	}

	/**
	 * Returns the owning role.
	 * @return the owner
	 */
	public String owner() {
		return this.owner;
	}

	/**
	 * Returns the application's role.
	 * @return the role
	 */
	public String role() {
		return this.role;
	}

	/**
	 * Returns the publication.
	 * @return its name
	 */
	public String publication() {
		return this.publication;
	}

}
