package io.postlog.spring;

import java.util.List;

import org.springframework.context.ApplicationEvent;

/**
 * Makes consumer groups without a registry, for tests of the actuator parts.
 */
public final class TestGroups {

	private TestGroups() {
	}

	public static PostlogConsumerGroup group(String name, PostlogSlotMonitor monitor) {
		return new PostlogConsumerGroup(name, monitor, List.of(), (ApplicationEvent event) -> {
		});
	}

}
