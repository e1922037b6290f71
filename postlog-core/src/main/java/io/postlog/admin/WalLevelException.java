package io.postlog.admin;

import io.postlog.PostlogException;

/**
 * The server's {@code wal_level} is not {@code logical}, so it cannot decode changes.
 */
public class WalLevelException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final int serverVersion;

	private final String walLevel;

	/**
	 * Creates an exception.
	 * @param serverVersion the server's {@code server_version_num}
	 * @param walLevel the server's {@code wal_level}
	 */
	public WalLevelException(int serverVersion, String walLevel) {
		super("PostgreSQL " + ReplicationAdmin.versionText(serverVersion) + " runs with wal_level=" + walLevel
				+ "; logical replication needs wal_level=logical (set it in postgresql.conf and restart the server)");
		this.serverVersion = serverVersion;
		this.walLevel = walLevel;
	}

	/**
	 * Returns the server's {@code server_version_num}.
	 * @return the version, for example {@code 170006}
	 */
	public int serverVersion() {
		return this.serverVersion;
	}

	/**
	 * Returns the server's {@code wal_level}.
	 * @return the setting, for example {@code replica}
	 */
	public String walLevel() {
		return this.walLevel;
	}

}
