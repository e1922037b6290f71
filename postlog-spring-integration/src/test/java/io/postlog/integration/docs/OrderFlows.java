package io.postlog.integration.docs;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.integration.PostlogHeaders;
import io.postlog.integration.PostlogInboundChannelAdapter;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.dsl.IntegrationFlow;

/**
 * The flow {@code docs/spring-integration.md} shows, kept equal to it by
 * {@link SpringIntegrationPageTests} and run by {@link OrderFlowsIntegrationTests}.
 */
@Configuration(proxyBeanMethods = false)
class OrderFlows {

	@Bean
	IntegrationFlow orderChanges(SearchIndex index) {
		PostlogInboundChannelAdapter changes = new PostlogInboundChannelAdapter();
		changes.setListenerId("order-changes");
		changes.setTables("orders");
		return IntegrationFlow.from(changes)
			.filter(Change.class, (change) -> change.after() != null)
			.handle(Change.class, (change, headers) -> {
				// The commit LSN orders a row's versions: the index keeps the newest.
				index.put(change.after().get("id"), change.after().asMap(),
						headers.get(PostlogHeaders.COMMIT_LSN, Lsn.class));
				return null;
			})
			.get();
	}

}
