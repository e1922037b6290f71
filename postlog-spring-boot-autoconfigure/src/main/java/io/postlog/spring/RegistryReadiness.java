package io.postlog.spring;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import io.postlog.consumer.ConsumerState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.availability.ReadinessState;

/**
 * The listener registry's readiness decisions: {@code REFUSING_TRAFFIC} from start until
 * every group first streams, then {@code ACCEPTING_TRAFFIC}; with
 * {@link PostlogListenerRegistry.Readiness#DELIVERING}, refusing again while a group is
 * not delivering or a listener is stopped. Decisions of the consumers' threads and of the
 * application are ordered by one lock; publishing is the registry's. Thread-safe.
 */
final class RegistryReadiness {

	private static final Logger logger = LoggerFactory.getLogger(PostlogListenerRegistry.class);

	private final Consumer<ReadinessState> publisher;

	/** Orders readiness decisions of the consumers' threads and the application's. */
	private final Object lock = new Object();

	private final Set<String> streamingGroups = new LinkedHashSet<>();

	private volatile boolean ready;

	private volatile int groupCount;

	private volatile PostlogListenerRegistry.Readiness policy = PostlogListenerRegistry.Readiness.STARTED;

	/** Whether readiness was last published as accepting, once ready. */
	private boolean accepting = true;

	RegistryReadiness(Consumer<ReadinessState> publisher) {
		this.publisher = publisher;
	}

	void policy(PostlogListenerRegistry.Readiness policy) {
		this.policy = policy;
	}

	/**
	 * Sets how many groups must stream before readiness accepts traffic.
	 * @param groupCount the number of groups starting
	 */
	void expect(int groupCount) {
		this.groupCount = groupCount;
	}

	/**
	 * Notes that a group streams (or waits in standby behind another replica); once every
	 * group did, readiness accepts traffic.
	 * @param group the group
	 */
	void groupStreaming(PostlogConsumerGroup group) {
		synchronized (this.lock) {
			this.streamingGroups.add(group.name());
			if (!this.ready && this.streamingGroups.size() >= this.groupCount) {
				this.ready = true;
				this.publisher.accept(ReadinessState.ACCEPTING_TRAFFIC);
			}
		}
	}

	/**
	 * With {@link PostlogListenerRegistry.Readiness#DELIVERING}, once every group
	 * streamed: refuses traffic while a group is not delivering or a listener is stopped
	 * by its error handler, and accepts it again when all deliver.
	 * @param groups the running groups
	 */
	void reassess(List<PostlogConsumerGroup> groups) {
		if (this.policy != PostlogListenerRegistry.Readiness.DELIVERING) {
			return;
		}
		synchronized (this.lock) {
			if (!this.ready) {
				return;
			}
			boolean delivering = delivering(groups);
			if (delivering != this.accepting) {
				this.accepting = delivering;
				logger.info("postlog readiness: {}", delivering ? "every group delivers" : "not delivering");
				this.publisher.accept(delivering ? ReadinessState.ACCEPTING_TRAFFIC : ReadinessState.REFUSING_TRAFFIC);
			}
		}
	}

	/**
	 * Answers the application's {@code ACCEPTING_TRAFFIC} with {@code REFUSING_TRAFFIC}
	 * while a group has not streamed yet or, once ready, while the registry refuses.
	 */
	void applicationAccepting() {
		synchronized (this.lock) {
			if (!this.ready && this.groupCount > 0) {
				logger.info("postlog is not streaming yet: readiness stays {}", ReadinessState.REFUSING_TRAFFIC);
				this.publisher.accept(ReadinessState.REFUSING_TRAFFIC);
			}
			else if (this.ready && !this.accepting) {
				this.publisher.accept(ReadinessState.REFUSING_TRAFFIC);
			}
		}
	}

	private static boolean delivering(List<PostlogConsumerGroup> groups) {
		for (PostlogConsumerGroup group : groups) {
			ConsumerState state = group.state();
			if (state == null || state == ConsumerState.RETRYING || state == ConsumerState.FAILED
					|| state == ConsumerState.STARTING || !group.failedListeners().isEmpty()) {
				return false;
			}
		}
		return true;
	}

}
