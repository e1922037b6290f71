package io.postlog.admin;

import io.postlog.PostlogException;

/**
 * The server has no free replication slot or WAL sender for postlog:
 * {@code max_replication_slots} or {@code max_wal_senders} is used up.
 */
public class ReplicationCapacityException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String setting;

	private final int limit;

	private final int used;

	/**
	 * Creates an exception.
	 * @param setting {@code max_replication_slots} or {@code max_wal_senders}
	 * @param limit the setting's value
	 * @param used how many are in use
	 */
	public ReplicationCapacityException(String setting, int limit, int used) {
		super("The server has no free " + what(setting) + " for postlog: " + setting + " is " + limit + " and " + used
				+ " are in use");
		this.setting = setting;
		this.limit = limit;
		this.used = used;
	}

	private static String what(String setting) {
		return "max_wal_senders".equals(setting) ? "WAL sender" : "replication slot";
	}

	/**
	 * Returns the setting that is used up.
	 * @return {@code max_replication_slots} or {@code max_wal_senders}
	 */
	public String setting() {
		return this.setting;
	}

	/**
	 * Returns the setting's value.
	 * @return the limit
	 */
	public int limit() {
		return this.limit;
	}

	/**
	 * Returns how many slots or senders were in use.
	 * @return the count
	 */
	public int used() {
		return this.used;
	}

}
