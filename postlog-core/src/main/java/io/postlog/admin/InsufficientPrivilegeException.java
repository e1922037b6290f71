package io.postlog.admin;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * The connecting role lacks a privilege postlog needs: {@code REPLICATION} (or superuser)
 * for slots and streaming, superuser for {@code FOR ALL TABLES} publications, ownership
 * of the tables to publish them. SQLState {@code 42501} when the server reported it.
 */
public class InsufficientPrivilegeException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String role;

	/**
	 * Creates an exception.
	 * @param role the connecting role
	 * @param action what the role may not do
	 * @param cause the server's error, if the server reported it
	 */
	public InsufficientPrivilegeException(String role, String action, @Nullable Throwable cause) {
		super("Role '" + role + "' may not " + action, cause);
		this.role = role;
	}

	/**
	 * Returns the role that lacks the privilege.
	 * @return the role name
	 */
	public String role() {
		return this.role;
	}

}
