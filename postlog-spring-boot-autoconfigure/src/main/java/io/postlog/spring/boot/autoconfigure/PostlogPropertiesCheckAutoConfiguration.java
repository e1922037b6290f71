package io.postlog.spring.boot.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} that warns at start about {@code postlog.*} properties postlog does
 * not have, with the nearest valid name. Applies whether postlog is enabled or not.
 */
@AutoConfiguration
public final class PostlogPropertiesCheckAutoConfiguration {

	PostlogPropertiesCheckAutoConfiguration() {
	}

	@Bean
	static PostlogPropertiesCheck postlogPropertiesCheck(Environment environment) {
		return new PostlogPropertiesCheck(environment,
				KnownPostlogProperties.load(PostlogPropertiesCheckAutoConfiguration.class.getClassLoader()));
	}

}
