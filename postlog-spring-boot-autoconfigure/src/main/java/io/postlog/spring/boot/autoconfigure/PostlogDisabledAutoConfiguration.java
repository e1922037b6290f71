package io.postlog.spring.boot.autoconfigure;

import javax.sql.DataSource;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for an application with {@code postlog.enabled=false}: logs, once
 * at start-up, each of postlog's slots that still exists and the WAL it retains.
 */
@AutoConfiguration(after = DataSourceAutoConfiguration.class)
@ConditionalOnClass({ DataSource.class, JdbcTemplate.class })
@ConditionalOnBean(DataSource.class)
@ConditionalOnBooleanProperty(name = "postlog.enabled", havingValue = false)
@EnableConfigurationProperties(PostlogProperties.class)
public final class PostlogDisabledAutoConfiguration {

	PostlogDisabledAutoConfiguration() {
	}

	@Bean
	static PostlogDisabledNotice postlogDisabledNotice(DataSource dataSource, PostlogProperties properties) {
		return new PostlogDisabledNotice(dataSource, properties);
	}

}
