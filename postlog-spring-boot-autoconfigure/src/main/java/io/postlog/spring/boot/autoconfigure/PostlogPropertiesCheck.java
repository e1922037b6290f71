package io.postlog.spring.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Logs a WARN at start for every {@code postlog.*} property set in the environment that
 * postlog does not have, with the nearest valid name: a misspelled property would
 * otherwise be ignored without a word. Reads every property source Boot binds from,
 * environment variables included ({@code POSTLOG_SLOT_NMAE} is
 * {@code postlog.slot.nmae}), except the JVM's system properties, which other code
 * shares.
 */
class PostlogPropertiesCheck implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(PostlogPropertiesCheck.class);

	private static final ConfigurationPropertyName POSTLOG = ConfigurationPropertyName.of("postlog");

	private final Environment environment;

	private final KnownPostlogProperties known;

	PostlogPropertiesCheck(Environment environment, KnownPostlogProperties known) {
		this.environment = environment;
		this.known = known;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.known.isEmpty()) {
			logger.debug("No postlog configuration metadata found; postlog.* property names are not checked");
			return;
		}
		Map<ConfigurationPropertyName, @Nullable Origin> unknown = new LinkedHashMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable && !isSystemProperties(source)) {
				iterable.stream()
					.filter(POSTLOG::isAncestorOf)
					.filter((name) -> !this.known.isKnown(name))
					.forEach((name) -> unknown.putIfAbsent(name, origin(source, name)));
			}
		}
		unknown.forEach((name, origin) -> {
			String nearest = this.known.nearest(name);
			String from = (origin != null) ? " (" + origin + ")" : "";
			if (nearest != null) {
				logger.warn("{} is not a postlog property; did you mean {}?{}", name, nearest, from);
			}
			else {
				logger.warn("{} is not a postlog property; it is ignored{}", name, from);
			}
		});
	}

	private static boolean isSystemProperties(ConfigurationPropertySource source) {
		return source.getUnderlyingSource() instanceof PropertySource<?> propertySource
				&& StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(propertySource.getName());
	}

	private static @Nullable Origin origin(ConfigurationPropertySource source, ConfigurationPropertyName name) {
		ConfigurationProperty property = source.getConfigurationProperty(name);
		return (property != null) ? property.getOrigin() : null;
	}

}
