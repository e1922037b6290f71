package io.postlog.spring.boot.actuate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.SlotInfo;
import io.postlog.consumer.ConsumerState;
import io.postlog.spring.PostlogConsumerGroup;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogSlotMonitor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The {@code postlog} actuator endpoint: per consumer group, the consumer's state, its
 * listeners with their last errors, its slot and publication, positions and lag. Reads
 * the server on each call. Thread-safe.
 */
@Endpoint(id = "postlog")
public class PostlogEndpoint {

	private final PostlogListenerRegistry registry;

	private final PostlogSlotMonitor monitor;

	/**
	 * Creates the endpoint.
	 * @param registry the listener registry
	 * @param monitor reads the default group's slot and publication, shown before the
	 * registry started
	 */
	public PostlogEndpoint(PostlogListenerRegistry registry, PostlogSlotMonitor monitor) {
		this.registry = registry;
		this.monitor = monitor;
	}

	/**
	 * Describes postlog's consumers, one per group.
	 * @return the description
	 */
	@ReadOperation
	public PostlogDescriptor postlog() {
		List<ConsumerDescriptor> consumers = new ArrayList<>();
		for (PostlogConsumerGroup group : this.registry.groups()) {
			consumers.add(describe(group.displayName(), group.state(), group.ackedLsn(), group.lastCommitTime(),
					group.lastFailure(), group.listeners(), group.monitor()));
		}
		if (consumers.isEmpty()) {
			consumers.add(describe("default", null, null, null, null, List.of(), this.monitor));
		}
		return new PostlogDescriptor(consumers);
	}

	private static ConsumerDescriptor describe(String group, @Nullable ConsumerState state, @Nullable Lsn ackedLsn,
			@Nullable Instant lastCommitTime, @Nullable Throwable failure,
			List<PostlogConsumerGroup.ListenerInfo> listeners, PostlogSlotMonitor monitor) {
		PostlogSlotMonitor.SlotStatus status = monitor.status();
		SlotInfo slot = status.slot();
		return new ConsumerDescriptor(group, (state != null) ? state.name() : "NOT_STARTED", text(ackedLsn),
				(lastCommitTime != null) ? lastCommitTime.toString() : null,
				(failure != null) ? failure.getMessage() : null, listeners,
				new SlotDescriptor(status.slotName(), slot != null, (slot != null) ? slot.active() : null,
						(slot != null) ? text(slot.confirmedFlushLsn()) : null,
						(slot != null) ? text(slot.restartLsn()) : null, (slot != null) ? slot.walStatus() : null),
				new PublicationDescriptor(monitor.publicationName(),
						monitor.publicationTables().stream().map(TableId::toString).toList()),
				status.currentLsn().toString(), status.lagBytes());
	}

	private static @Nullable String text(@Nullable Lsn lsn) {
		return (lsn != null) ? lsn.toString() : null;
	}

	/**
	 * The endpoint's response.
	 *
	 * @param consumers the consumers, one per group, the default group first
	 */
	public record PostlogDescriptor(List<ConsumerDescriptor> consumers) implements OperationResponseBody {
	}

	/**
	 * One consumer: a group's.
	 *
	 * @param group the group's name, {@code default} for the default group
	 * @param state the consumer's state, {@code NOT_STARTED} when none runs
	 * @param ackedLsn the position acknowledged to the server
	 * @param lastCommitTime the commit time of the last transaction delivered
	 * @param lastError the message of the latest failure
	 * @param listeners the listener methods, in delivery order, each with its last error
	 * @param slot the replication slot
	 * @param publication the publication
	 * @param serverLsn the server's current WAL position
	 * @param lagBytes the WAL the slot retains beyond its confirmed position
	 */
	public record ConsumerDescriptor(String group, String state, @Nullable String ackedLsn,
			@Nullable String lastCommitTime, @Nullable String lastError,
			List<PostlogConsumerGroup.ListenerInfo> listeners, SlotDescriptor slot, PublicationDescriptor publication,
			String serverLsn, @Nullable Long lagBytes) {
	}

	/**
	 * A replication slot.
	 *
	 * @param name the slot's name
	 * @param exists whether it exists
	 * @param active whether a connection streams from it
	 * @param confirmedFlushLsn its confirmed position
	 * @param restartLsn the oldest WAL it retains
	 * @param walStatus the server's {@code wal_status}
	 */
	public record SlotDescriptor(String name, boolean exists, @Nullable Boolean active,
			@Nullable String confirmedFlushLsn, @Nullable String restartLsn, @Nullable String walStatus) {
	}

	/**
	 * A publication.
	 *
	 * @param name the publication's name
	 * @param tables the tables it publishes
	 */
	public record PublicationDescriptor(String name, List<String> tables) {
	}

}
