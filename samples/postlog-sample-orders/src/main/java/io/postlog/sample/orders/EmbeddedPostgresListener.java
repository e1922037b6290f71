package io.postlog.sample.orders;

import java.util.Map;

import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts an embedded PostgreSQL ({@code wal_level=logical}) before the DataSource is
 * created when no {@code spring.datasource.url} is configured. The server is registered
 * as the context's first disposable bean, so it stops last: after postlog has stopped and
 * sent its final acknowledgement, and after the connection pool has closed.
 */
class EmbeddedPostgresListener implements SmartApplicationListener {

	private static final Logger logger = LoggerFactory.getLogger(EmbeddedPostgresListener.class);

	private @Nullable EmbeddedPostgresServer server;

	@Override
	public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
		return ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(eventType)
				|| ApplicationPreparedEvent.class.isAssignableFrom(eventType)
				|| ApplicationFailedEvent.class.isAssignableFrom(eventType);
	}

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		EmbeddedPostgresServer server = this.server;
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			start(prepared.getEnvironment());
		}
		else if (event instanceof ApplicationPreparedEvent prepared && server != null
				&& prepared.getApplicationContext().getBeanFactory() instanceof DefaultSingletonBeanRegistry registry) {
			registry.registerDisposableBean("embeddedPostgres", server::close);
		}
		else if (event instanceof ApplicationFailedEvent && server != null) {
			server.close();
		}
	}

	private void start(ConfigurableEnvironment environment) {
		if (environment.containsProperty("spring.datasource.url")) {
			return;
		}
		if (Boolean.getBoolean("spring.aot.processing")) {
			// process-aot only builds the bean definitions: no server, none left running.
			return;
		}
		logger.info("No spring.datasource.url set: starting an embedded PostgreSQL");
		EmbeddedPostgresServer server = EmbeddedPostgresServer.builder().shutdownHook(false).start();
		this.server = server;
		PostgresDatabase database = server.createDatabase();
		environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedPostgres", Map.of("spring.datasource.url", database.jdbcUrl(),
					"spring.datasource.username", database.username())));
	}

}
