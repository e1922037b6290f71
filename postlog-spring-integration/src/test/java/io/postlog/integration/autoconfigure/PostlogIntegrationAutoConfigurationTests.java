package io.postlog.integration.autoconfigure;

import java.util.List;

import io.postlog.Operation;
import io.postlog.PostlogException;
import io.postlog.integration.PostlogInboundChannelAdapter;
import io.postlog.spring.PostlogListenerRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.integration.autoconfigure.IntegrationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The adapter made from properties: only with a channel and postlog's registry, with the
 * listener attributes the properties give.
 */
class PostlogIntegrationAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(IntegrationAutoConfiguration.class, PostlogIntegrationAutoConfiguration.class));

	@Test
	void noAdapterWithoutAChannel() {
		this.runner.withBean(PostlogListenerRegistry.class, PostlogIntegrationAutoConfigurationTests::registry)
			.run((context) -> assertThat(context).doesNotHaveBean(PostlogInboundChannelAdapter.class));
	}

	@Test
	void noAdapterWithoutPostlogsRegistry() {
		this.runner.withPropertyValues("postlog.integration.inbound.channel=changes")
			.run((context) -> assertThat(context).doesNotHaveBean(PostlogInboundChannelAdapter.class));
	}

	@Test
	void adapterTakesItsListenerAttributesFromProperties() {
		this.runner.withBean(PostlogListenerRegistry.class, PostlogIntegrationAutoConfigurationTests::registry)
			.withPropertyValues("postlog.integration.inbound.channel=changes",
					"postlog.integration.inbound.tables=orders,shop.lines", "postlog.integration.inbound.id=orders-in",
					"postlog.integration.inbound.operations=insert,update", "postlog.integration.inbound.group=search",
					"postlog.integration.inbound.concurrency=4")
			.run((context) -> {
				PostlogInboundChannelAdapter adapter = context.getBean(PostlogInboundChannelAdapter.class);
				assertThat(adapter.getListenerId()).isEqualTo("orders-in");
				assertThat(adapter.listenerAttributes()).containsEntry("id", "orders-in")
					.containsEntry("group", "search")
					.containsEntry("concurrency", "4")
					.hasEntrySatisfying("tables",
							(tables) -> assertThat((String[]) tables).containsExactly("orders", "shop.lines"))
					.hasEntrySatisfying("operations", (operations) -> assertThat((Operation[]) operations)
						.containsExactly(Operation.INSERT, Operation.UPDATE));
			});
	}

	private static PostlogListenerRegistry registry() {
		return new PostlogListenerRegistry((group, tables) -> {
			throw new PostlogException("not started in this test");
		}, List.of());
	}

}
