package io.postlog.spring;

import java.time.Duration;

import io.postlog.Lsn;
import io.postlog.consumer.ConsumerState;

import org.springframework.context.ApplicationContext;

/**
 * Waits for every group to acknowledge the server's position, for this module's tests
 * (applications use {@code PostlogTestUtils} from {@code postlog-spring-boot-test}, which
 * depends on this module).
 */
public final class CaughtUp {

	private CaughtUp() {
	}

	public static void await(ApplicationContext context, Duration timeout) {
		PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
		Lsn target = context.getBean(PostlogSlotMonitor.class).currentLsn();
		org.awaitility.Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(10)).untilAsserted(() -> {
			org.assertj.core.api.Assertions.assertThat(registry.groups()).isNotEmpty();
			for (PostlogConsumerGroup group : registry.groups()) {
				org.assertj.core.api.Assertions.assertThat(group.state())
					.as("state of group %s (%s)", group.displayName(), group.lastFailure())
					.isNotIn(ConsumerState.FAILED, ConsumerState.STOPPED);
				org.assertj.core.api.Assertions.assertThat(group.ackedLsn())
					.as("acknowledged position of group %s", group.displayName())
					.isNotNull()
					.matches((acked) -> acked.compareTo(target) >= 0, "at or past " + target);
			}
		});
	}

}
