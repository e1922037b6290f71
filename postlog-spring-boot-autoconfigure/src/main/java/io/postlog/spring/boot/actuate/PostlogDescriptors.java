package io.postlog.spring.boot.actuate;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.ReplicationSettings;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.TableFilter;
import io.postlog.consumer.Backfill;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.SnapshotProgress;
import io.postlog.spring.FailureText;
import io.postlog.spring.PostlogConsumerGroup;
import io.postlog.spring.PostlogSlotMonitor;
import org.jspecify.annotations.Nullable;

/**
 * Turns what a consumer group and the slot monitor report into the
 * {@link PostlogEndpoint}'s descriptors: positions as LSN text, failures as
 * {@link FailureText} (class and SQLState, messages only when asked for), never a row
 * value. Stateless.
 */
final class PostlogDescriptors {

	private PostlogDescriptors() {
	}

	static PostlogEndpoint.ConsumerDescriptor consumer(String group, @Nullable ConsumerState state,
			@Nullable Lsn ackedLsn, @Nullable Instant lastCommitTime, @Nullable Throwable failure,
			List<PostlogConsumerGroup.ListenerInfo> listeners, PostlogSlotMonitor monitor,
			PostlogEndpoint.@Nullable StreamingDescriptor streaming, @Nullable SnapshotProgress snapshot,
			List<Backfill> backfills, Map<String, Object> details, boolean withMessages) {
		PostlogSlotMonitor.Reading reading = monitor.reading();
		PostlogSlotMonitor.SlotStatus status = reading.available() ? reading.slot() : null;
		SlotInfo slot = (status != null) ? status.slot() : null;
		return new PostlogEndpoint.ConsumerDescriptor(group, (state != null) ? state.name() : "NOT_STARTED",
				text(ackedLsn), (lastCommitTime != null) ? lastCommitTime.toString() : null,
				FailureText.of(failure, withMessages),
				withMessages ? listeners
						: listeners.stream().map(PostlogConsumerGroup.ListenerInfo::withoutErrorMessage).toList(),
				(status != null) ? new PostlogEndpoint.SlotDescriptor(status.slotName(), slot != null,
						(slot != null) ? slot.active() : null, (slot != null) ? text(slot.confirmedFlushLsn()) : null,
						(slot != null) ? text(slot.restartLsn()) : null, (slot != null) ? slot.walStatus() : null)
						: PostlogEndpoint.Unavailable.of(reading),
				(status != null) ? new PostlogEndpoint.PublicationDescriptor(monitor.publicationName(),
						reading.publicationTables().stream().map(TableId::toString).toList(),
						filters(monitor.publicationFilters())) : PostlogEndpoint.Unavailable.of(reading),
				(status != null) ? status.currentLsn().toString() : null, (status != null) ? status.lagBytes() : null,
				streaming, snapshot(snapshot, (status != null) ? status.snapshotSlot() : null),
				backfills.stream().map((backfill) -> backfill(backfill, withMessages)).toList(), details);
	}

	private static Map<String, PostlogEndpoint.FilterDescriptor> filters(Map<TableId, TableFilter> filters) {
		Map<String, PostlogEndpoint.FilterDescriptor> descriptors = new LinkedHashMap<>();
		filters.forEach((table, filter) -> descriptors.put(table.toString(),
				new PostlogEndpoint.FilterDescriptor(filter.where(), filter.columns())));
		return descriptors;
	}

	private static PostlogEndpoint.BackfillDescriptor backfill(Backfill backfill, boolean withMessages) {
		return new PostlogEndpoint.BackfillDescriptor(backfill.id(), backfill.state().name(),
				backfill.tables().stream().map(TableId::toString).toList(), backfill.rowsDone(),
				backfill.rowsEstimated(),
				backfill.progress()
					.stream()
					.map((table) -> new PostlogEndpoint.TableProgressDescriptor(table.table().toString(),
							table.rowsDone(), table.rowsEstimated(), table.chunksDone(), table.chunksTotal(),
							table.done()))
					.toList(),
				FailureText.of(backfill.failure(), withMessages));
	}

	private static PostlogEndpoint.@Nullable SnapshotDescriptor snapshot(@Nullable SnapshotProgress progress,
			@Nullable SlotInfo snapshotSlot) {
		if (progress == null && snapshotSlot == null) {
			return null;
		}
		List<PostlogEndpoint.TableProgressDescriptor> tables = (progress != null) ? progress.tables()
			.stream()
			.map((table) -> new PostlogEndpoint.TableProgressDescriptor(table.table().toString(), table.rowsDone(),
					table.rowsEstimated(), table.chunksDone(), table.chunksTotal(), table.done()))
			.toList() : List.of();
		return new PostlogEndpoint.SnapshotDescriptor(
				(progress == null) ? "ELSEWHERE" : progress.complete() ? "COMPLETE" : "RUNNING",
				(progress != null) ? progress.consistentPoint().toString() : null,
				(progress != null) ? progress.rowsDone() : null, (progress != null) ? progress.rowsEstimated() : null,
				tables, (snapshotSlot != null) ? snapshotSlot.slotName() : null);
	}

	static PostlogEndpoint.ServerDescriptor server(PostlogSlotMonitor.ServerStatus server, Set<String> ownSlots,
			@Nullable Instant readAt) {
		ReplicationSettings settings = server.settings();
		List<PostlogEndpoint.ServerSlotDescriptor> slots = server.slots()
			.stream()
			.map((slot) -> new PostlogEndpoint.ServerSlotDescriptor(slot.slotName(), slot.plugin(), slot.database(),
					ownSlots.contains(slot.slotName()) && server.database().equals(slot.database()), slot.active(),
					slot.activePid(), slot.temporary(), text(slot.restartLsn()), text(slot.confirmedFlushLsn()),
					slot.retainedBytes(server.position()), slot.walStatus(), slot.safeWalSize(),
					(slot.inactiveSince() != null) ? slot.inactiveSince().toString() : null, slot.failover(),
					slot.synced(), slot.conflicting(), slot.invalidationReason()))
			.toList();
		return new PostlogEndpoint.ServerDescriptor(settings.serverVersion(), settings.inRecovery(),
				server.position().toString(),
				new PostlogEndpoint.SettingsDescriptor(settings.maxReplicationSlots(), settings.usedReplicationSlots(),
						settings.maxWalSenders(), settings.usedWalSenders(), settings.maxSlotWalKeepSize(),
						settings.walSenderTimeout().toString(),
						(settings.idleReplicationSlotTimeout() != null)
								? settings.idleReplicationSlotTimeout().toString() : null,
						settings.synchronizedStandbySlots(), settings.syncReplicationSlots()),
				slots, (readAt != null) ? readAt.toString() : null);
	}

	private static @Nullable String text(@Nullable Lsn lsn) {
		return (lsn != null) ? lsn.toString() : null;
	}

}
