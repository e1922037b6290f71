package io.postlog.admin;

import java.util.List;

import io.postlog.PostlogException;
import io.postlog.TableId;

/**
 * Tables published for {@code UPDATE} or {@code DELETE} have no usable replica identity
 * (no primary key, {@code REPLICA IDENTITY NOTHING}, or an identity index that is gone).
 * Once they are in a publication that publishes updates or deletes, the server refuses
 * every {@code UPDATE} and {@code DELETE} on them.
 */
public class ReplicaIdentityException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final List<TableId> tables;

	/**
	 * Creates an exception.
	 * @param publicationName the publication
	 * @param tables the tables without a usable replica identity
	 */
	public ReplicaIdentityException(String publicationName, List<TableId> tables) {
		super("Publication '" + publicationName + "' publishes updates and deletes of " + tables
				+ ", which have no usable replica identity; PostgreSQL refuses UPDATE and DELETE on them");
		this.tables = List.copyOf(tables);
	}

	/**
	 * Returns the tables without a usable replica identity.
	 * @return the tables
	 */
	public List<TableId> tables() {
		return this.tables;
	}

}
