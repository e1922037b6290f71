package io.postlog.sample.orders;

import java.util.Map;

import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts an embedded PostgreSQL ({@code wal_level=logical}) before the DataSource is
 * created when no {@code spring.datasource.url} is configured, and stops it when the
 * context closes.
 */
class EmbeddedPostgresListener implements SmartApplicationListener {

	private static final Logger logger = LoggerFactory.getLogger(EmbeddedPostgresListener.class);

	private @Nullable EmbeddedPostgresServer server;

	@Override
	public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
		return ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(eventType)
				|| ContextClosedEvent.class.isAssignableFrom(eventType);
	}

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			start(prepared.getEnvironment());
		}
		else if (event instanceof ContextClosedEvent && this.server != null) {
			this.server.close();
			this.server = null;
		}
	}

	private void start(ConfigurableEnvironment environment) {
		if (environment.containsProperty("spring.datasource.url")) {
			return;
		}
		logger.info("No spring.datasource.url set: starting an embedded PostgreSQL");
		this.server = EmbeddedPostgresServer.builder().start();
		PostgresDatabase database = this.server.createDatabase();
		environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedPostgres", Map.of("spring.datasource.url", database.jdbcUrl(),
					"spring.datasource.username", database.username())));
	}

}
