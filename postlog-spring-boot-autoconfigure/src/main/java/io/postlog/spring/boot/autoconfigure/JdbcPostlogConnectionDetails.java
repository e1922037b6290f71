package io.postlog.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;

/**
 * {@link PostlogConnectionDetails} taken from the application's
 * {@link JdbcConnectionDetails}.
 */
final class JdbcPostlogConnectionDetails implements PostlogConnectionDetails {

	private final JdbcConnectionDetails details;

	JdbcPostlogConnectionDetails(JdbcConnectionDetails details) {
		this.details = details;
	}

	@Override
	public String getJdbcUrl() {
		return this.details.getJdbcUrl();
	}

	@Override
	public @Nullable String getUsername() {
		return this.details.getUsername();
	}

	@Override
	public @Nullable String getPassword() {
		return this.details.getPassword();
	}

}
