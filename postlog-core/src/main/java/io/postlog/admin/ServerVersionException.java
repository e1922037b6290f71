package io.postlog.admin;

import io.postlog.PostlogException;

/**
 * A capability was asked for that the server's PostgreSQL version cannot provide, for
 * example failover slots before 17. postlog refuses rather than degrade silently.
 */
public class ServerVersionException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String feature;

	private final int requiredVersion;

	private final int serverVersion;

	/**
	 * Creates an exception.
	 * @param feature what was asked for, for example {@code Failover slots}
	 * @param requiredVersion the first {@code server_version_num} that has it, for
	 * example {@code 170000}
	 * @param serverVersion the server's {@code server_version_num}
	 */
	public ServerVersionException(String feature, int requiredVersion, int serverVersion) {
		super(feature + " need PostgreSQL " + (requiredVersion / 10000) + " or later; the server is PostgreSQL "
				+ ReplicationAdmin.versionText(serverVersion));
		this.feature = feature;
		this.requiredVersion = requiredVersion;
		this.serverVersion = serverVersion;
	}

	/**
	 * Returns what was asked for.
	 * @return the feature
	 */
	public String feature() {
		return this.feature;
	}

	/**
	 * Returns the first server version that has the feature.
	 * @return a {@code server_version_num}, for example {@code 170000}
	 */
	public int requiredVersion() {
		return this.requiredVersion;
	}

	/**
	 * Returns the server's version.
	 * @return a {@code server_version_num}, for example {@code 160009}
	 */
	public int serverVersion() {
		return this.serverVersion;
	}

}
