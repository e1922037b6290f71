package io.postlog.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * Replication connection settings; default to the application's JDBC connection details.
 * Bound under {@code postlog.datasource}, a group of {@link PostlogProperties}; not
 * thread-safe, bound once at start-up.
 */
public class PostlogDatasourceProperties {

	/**
	 * JDBC URL of the database to stream from.
	 */
	private @Nullable String url;

	/**
	 * Login user of the replication connection (needs the REPLICATION attribute).
	 */
	private @Nullable String username;

	/**
	 * Login password of the replication connection.
	 */
	private @Nullable String password;

	public @Nullable String getUrl() {
		return this.url;
	}

	public void setUrl(@Nullable String url) {
		this.url = url;
	}

	public @Nullable String getUsername() {
		return this.username;
	}

	public void setUsername(@Nullable String username) {
		this.username = username;
	}

	public @Nullable String getPassword() {
		return this.password;
	}

	public void setPassword(@Nullable String password) {
		this.password = password;
	}

}
