package io.postlog.spring.boot.autoconfigure.endpoint;

import io.postlog.spring.DeadLetters;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.spring.PostlogStreamingMonitor;
import io.postlog.spring.boot.actuate.PostlogEndpoint;
import io.postlog.spring.boot.actuate.PostlogEndpointConsumer;
import io.postlog.spring.boot.autoconfigure.PostlogAutoConfiguration;
import io.postlog.spring.boot.autoconfigure.PostlogProperties;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@code postlog} actuator endpoint.
 */
@AutoConfiguration(after = PostlogAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(PostlogListenerRegistry.class)
@ConditionalOnAvailableEndpoint(PostlogEndpoint.class)
public final class PostlogEndpointAutoConfiguration {

	PostlogEndpointAutoConfiguration() {
	}

	@Bean
	@ConditionalOnMissingBean
	PostlogEndpoint postlogEndpoint(PostlogListenerRegistry registry, PostlogSlotMonitor monitor,
			ObjectProvider<PostlogStreamingMonitor> streaming, ObjectProvider<PostlogEndpointConsumer> others,
			PostlogProperties properties, ObjectProvider<DeadLetters> deadLetters) {
		return new PostlogEndpoint(registry, monitor, streaming.getIfAvailable(), others.orderedStream().toList(),
				properties.getEndpoint().isShowExceptionMessages(), deadLetters.getIfAvailable());
	}

}
