package io.postlog.admin;

import io.postlog.PostlogException;

/**
 * A slot, publication, schema or table name that postlog refuses to put into SQL. Raised
 * before any statement runs.
 */
public class InvalidIdentifierException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String kind;

	/**
	 * Creates an exception.
	 * @param kind what the name names, for example {@code slot}
	 * @param name the refused name (shown with control characters escaped)
	 * @param reason why it is refused
	 */
	public InvalidIdentifierException(String kind, String name, String reason) {
		super("Invalid " + kind + " name '" + PgIdentifiers.printable(name) + "': " + reason);
		this.kind = kind;
	}

	/**
	 * Returns what the name names: {@code slot}, {@code publication}, {@code schema} or
	 * {@code table}.
	 * @return the kind of name
	 */
	public String kind() {
		return this.kind;
	}

}
