package io.postlog.spring;

import java.util.function.Consumer;

import io.postlog.Lsn;
import io.postlog.consumer.ConsumerListener;
import io.postlog.consumer.ConsumerState;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs when a group first streams (slot, publication and position) and tells the
 * registry, which decides readiness. Thread-safe.
 */
final class GroupNotices implements ConsumerListener {

	private static final Logger logger = LoggerFactory.getLogger(PostlogListenerRegistry.class);

	private final PostlogConsumerGroup group;

	private final Consumer<PostlogConsumerGroup> streaming;

	private volatile boolean announced;

	GroupNotices(PostlogConsumerGroup group, Consumer<PostlogConsumerGroup> streaming) {
		this.group = group;
		this.streaming = streaming;
	}

	@Override
	public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
		if (current == ConsumerState.RUNNING && !this.announced) {
			this.announced = true;
			Lsn position = this.group.ackedLsn();
			logger.info(
					"postlog group '{}' is streaming from slot {}, publication {}, at position {}, to {} listener(s)",
					this.group.displayName(), this.group.slotName(), this.group.publicationName(),
					(position != null && position.isValid()) ? position : "the slot's confirmed position",
					this.group.endpoints().size());
		}
		if (current == ConsumerState.RUNNING || current == ConsumerState.STANDBY) {
			this.streaming.accept(this.group);
		}
	}

}
