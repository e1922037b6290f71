package io.postlog.spring.boot.autoconfigure.health;

import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.spring.boot.autoconfigure.PostlogAutoConfiguration;
import io.postlog.spring.boot.autoconfigure.PostlogHealthProperties;
import io.postlog.spring.boot.autoconfigure.PostlogProperties;
import io.postlog.spring.boot.health.PostlogHealthContributor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@code postlog} health component: one indicator per
 * consumer group.
 */
@AutoConfiguration(after = PostlogAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(PostlogListenerRegistry.class)
@ConditionalOnEnabledHealthIndicator("postlog")
public final class PostlogHealthContributorAutoConfiguration {

	PostlogHealthContributorAutoConfiguration() {
	}

	@Bean
	@ConditionalOnMissingBean(name = { "postlogHealthContributor", "postlogHealthIndicator" })
	PostlogHealthContributor postlogHealthContributor(PostlogListenerRegistry registry, PostlogSlotMonitor monitor,
			PostlogProperties properties, ObjectProvider<HeartbeatTracker> heartbeats) {
		PostlogHealthProperties health = properties.getHealth();
		return new PostlogHealthContributor(registry, monitor, health.getMaxLag(), health.getMaxRetained(),
				health.getMaxRetainedRatio(), heartbeats.getIfAvailable());
	}

}
