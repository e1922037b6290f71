package io.postlog.spring.boot.autoconfigure.metrics;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.spring.PostlogStreamingMonitor;
import io.postlog.spring.boot.autoconfigure.PostlogAutoConfiguration;
import io.postlog.spring.boot.metrics.PostlogMetrics;
import io.postlog.spring.boot.metrics.PostlogStreamingMetrics;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for postlog's Micrometer meters.
 */
@AutoConfiguration(after = PostlogAutoConfiguration.class)
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean(PostlogSlotMonitor.class)
public final class PostlogMetricsAutoConfiguration {

	PostlogMetricsAutoConfiguration() {
	}

	@Bean
	@ConditionalOnMissingBean
	PostlogMetrics postlogMetrics(ObjectProvider<HeartbeatTracker> heartbeats) {
		PostlogMetrics metrics = new PostlogMetrics();
		heartbeats.ifAvailable((tracker) -> tracker.addListener(metrics));
		return metrics;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(PostlogStreamingMonitor.class)
	PostlogStreamingMetrics postlogStreamingMetrics(PostlogStreamingMonitor monitor) {
		return new PostlogStreamingMetrics(monitor);
	}

}
