package io.postlog.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * {@link PostlogConnectionDetails} from {@code postlog.datasource.*}.
 */
final class PropertiesPostlogConnectionDetails implements PostlogConnectionDetails {

	private final PostlogDatasourceProperties datasource;

	PropertiesPostlogConnectionDetails(PostlogDatasourceProperties datasource) {
		this.datasource = datasource;
	}

	@Override
	public String getJdbcUrl() {
		String url = this.datasource.getUrl();
		if (url == null) {
			throw new IllegalStateException("postlog.datasource.url is not set");
		}
		return url;
	}

	@Override
	public @Nullable String getUsername() {
		return this.datasource.getUsername();
	}

	@Override
	public @Nullable String getPassword() {
		return this.datasource.getPassword();
	}

}
