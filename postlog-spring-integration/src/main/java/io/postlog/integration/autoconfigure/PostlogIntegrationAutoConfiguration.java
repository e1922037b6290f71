package io.postlog.integration.autoconfigure;

import io.postlog.Operation;
import io.postlog.integration.PostlogInboundChannelAdapter;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.boot.autoconfigure.PostlogAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.integration.autoconfigure.IntegrationAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.endpoint.MessageProducerSupport;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the Spring Integration adapter: with
 * {@code postlog.integration.inbound.channel} set, a {@link PostlogInboundChannelAdapter}
 * sends the changes of {@code postlog.integration.inbound.tables} to that channel, as a
 * listener of postlog's registry. Adapters an application declares itself (in an
 * {@code IntegrationFlow}, for example) need nothing of this but postlog's own
 * auto-configuration.
 */
@AutoConfiguration(after = { PostlogAutoConfiguration.class, IntegrationAutoConfiguration.class })
@ConditionalOnClass({ MessageProducerSupport.class, PostlogListenerRegistry.class })
@ConditionalOnBean(PostlogListenerRegistry.class)
@ConditionalOnProperty("postlog.integration.inbound.channel")
@EnableConfigurationProperties(PostlogIntegrationProperties.class)
public final class PostlogIntegrationAutoConfiguration {

	PostlogIntegrationAutoConfiguration() {
	}

	@Bean
	@ConditionalOnMissingBean
	PostlogInboundChannelAdapter postlogInboundChannelAdapter(PostlogIntegrationProperties properties) {
		PostlogIntegrationProperties.Inbound inbound = properties.getInbound();
		PostlogInboundChannelAdapter adapter = new PostlogInboundChannelAdapter();
		adapter.setListenerId(inbound.getId());
		adapter.setOutputChannelName(inbound.getChannel());
		if (inbound.getErrorChannel() != null) {
			adapter.setErrorChannelName(inbound.getErrorChannel());
		}
		adapter.setTables(inbound.getTables().toArray(new String[0]));
		if (!inbound.getOperations().isEmpty()) {
			adapter.setOperations(inbound.getOperations().toArray(new Operation[0]));
		}
		adapter.setGroup(inbound.getGroup());
		adapter.setConcurrency(inbound.getConcurrency());
		return adapter;
	}

}
