package io.postlog.spring.boot.actuate;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.postlog.TableId;
import io.postlog.admin.SlotStatistics;
import io.postlog.consumer.Backfill;
import io.postlog.consumer.BackfillQueueFullException;
import io.postlog.consumer.SubscriptionControl;
import io.postlog.spring.DeadLetters;
import io.postlog.spring.PostlogConsumerGroup;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.spring.PostlogStreamingMonitor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code postlog} actuator endpoint: per consumer group, the consumer's state, its
 * listeners with their last errors, its slot and publication, positions and lag, and its
 * initial snapshot and its backfills with rows done and estimated per table; and every
 * logical slot on the server, of every database and plugin, with postlog's own (any
 * group's) marked, so that a forgotten slot is seen before it fills the disk. Consumers
 * beside the groups ({@link PostlogEndpointConsumer}, such as the Kafka relay) follow the
 * groups. The server's side (slots, publication, positions) comes from the latest reading
 * of each group's {@link PostlogSlotMonitor}, taken in the background, so a call never
 * waits on the server: while it cannot be read, each section that depends on it is
 * {@code {"status":"unavailable","reason":...,"lastContact":...}} and the call still
 * answers 200. {@code POST /actuator/postlog/backfill} with
 * {@code {"tables":"schema.table,..."}} (and optionally {@code "group"}) starts a
 * backfill and returns its id, or answers 429 when the group holds
 * {@code postlog.snapshot.max-queued-backfills} unfinished backfills already; {@code POST
 * /actuator/postlog/listeners/{id}} with {@code {"action":"stop"}} (or {@code start},
 * {@code pause}, {@code resume}) controls one listener.
 * <p>
 * Read-only by default: its write operations are not mapped unless
 * {@code management.endpoint.postlog.access=unrestricted}. A failure that is not
 * postlog's own (a listener's exception, a driver's) shows as its class only, unless
 * {@code postlog.endpoint.show-exception-messages=true}. Thread-safe.
 */
@Endpoint(id = "postlog", defaultAccess = Access.READ_ONLY)
public class PostlogEndpoint {

	private final PostlogListenerRegistry registry;

	private final PostlogSlotMonitor monitor;

	private final @Nullable PostlogStreamingMonitor streaming;

	private final List<PostlogEndpointConsumer> others;

	private final boolean showExceptionMessages;

	private final @Nullable DeadLetters deadLetters;

	/**
	 * Creates the endpoint.
	 * @param registry the listener registry
	 * @param monitor reads the default group's slot and publication, shown before the
	 * registry started
	 */
	public PostlogEndpoint(PostlogListenerRegistry registry, PostlogSlotMonitor monitor) {
		this(registry, monitor, null, List.of(), false, null);
	}

	/**
	 * Creates the endpoint.
	 * @param registry the listener registry
	 * @param monitor reads the slot and publication
	 * @param streaming the consumer's and the server's spill, or {@code null}
	 * @param others consumers beside the groups, described after them
	 * @param showExceptionMessages whether to show the messages of failures that are not
	 * postlog's ({@code postlog.endpoint.show-exception-messages})
	 * @param deadLetters replays dead letters, or {@code null} without the dead-letter
	 * error handler
	 */
	public PostlogEndpoint(PostlogListenerRegistry registry, PostlogSlotMonitor monitor,
			@Nullable PostlogStreamingMonitor streaming, List<PostlogEndpointConsumer> others,
			boolean showExceptionMessages, @Nullable DeadLetters deadLetters) {
		this.registry = registry;
		this.monitor = monitor;
		this.streaming = streaming;
		this.others = List.copyOf(others);
		this.showExceptionMessages = showExceptionMessages;
		this.deadLetters = deadLetters;
	}

	/**
	 * Describes postlog's consumers, one per group.
	 * @return the description
	 */
	@ReadOperation
	public PostlogDescriptor postlog() {
		List<ConsumerDescriptor> consumers = new ArrayList<>();
		for (PostlogConsumerGroup group : this.registry.groups()) {
			// The streaming monitor watches the default group's consumer.
			consumers.add(PostlogDescriptors.consumer(group.displayName(), group.state(), group.ackedLsn(),
					group.lastCommitTime(), group.lastFailure(), group.listeners(), group.monitor(),
					PostlogConsumerGroup.DEFAULT.equals(group.name()) ? streaming() : null, group.snapshot(),
					group.backfills(), Map.of(), this.showExceptionMessages));
		}
		if (consumers.isEmpty()) {
			consumers.add(PostlogDescriptors.consumer("default", null, null, null, null, List.of(), this.monitor,
					streaming(), null, List.of(), Map.of(), this.showExceptionMessages));
		}
		for (PostlogEndpointConsumer other : this.others) {
			consumers.add(PostlogDescriptors.consumer(other.group(), other.state(), other.ackedLsn(),
					other.lastCommitTime(), other.lastFailure(), List.of(), other.monitor(), null, null, List.of(),
					other.details(), this.showExceptionMessages));
		}
		PostlogSlotMonitor.Reading reading = this.monitor.reading();
		PostlogSlotMonitor.ServerStatus server = reading.server();
		return new PostlogDescriptor(consumers, (reading.failure() == null && server != null)
				? PostlogDescriptors.server(server, ownSlots(), reading.lastContact()) : Unavailable.of(reading));
	}

	private Set<String> ownSlots() {
		Set<String> slots = new HashSet<>();
		slots.add(this.monitor.slotName());
		for (PostlogConsumerGroup group : this.registry.groups()) {
			slots.add(group.slotName());
		}
		for (PostlogEndpointConsumer other : this.others) {
			slots.add(other.monitor().slotName());
		}
		return slots;
	}

	/**
	 * Starts, stops, pauses or resumes one listener ({@code POST
	 * /actuator/postlog/listeners/{id}} with {@code {"action":"stop"}}); a stop or pause
	 * takes effect after the transaction in delivery, a start once nothing is in flight
	 * in the listener's group.
	 * @param operation {@code listeners}
	 * @param id the listener's id
	 * @param action {@code start}, {@code stop}, {@code pause}, {@code resume}, or
	 * {@code replay-dead-letters} (with
	 * {@code postlog.listener.error-handler=dead-letter}: gives the listener its dead
	 * letters again, oldest first, see {@link DeadLetters})
	 * @return the listener's state when the request was taken, or what was replayed
	 */
	@WriteOperation
	public OperationResponseBody listener(@Selector String operation, @Selector String id, String action) {
		if (!"listeners".equals(operation)) {
			throw new InvalidEndpointRequestException("Unknown operation '" + operation + "'",
					"Unknown operation; POST to /actuator/postlog/listeners/{id}");
		}
		if ("replay-dead-letters".equals(action)) {
			return replay(id);
		}
		try {
			switch (action) {
				case "start" -> this.registry.start(id);
				case "stop" -> this.registry.stop(id);
				case "pause" -> this.registry.pause(id);
				case "resume" -> this.registry.resume(id);
				default -> throw new InvalidEndpointRequestException("Unknown action '" + action + "'",
						"Unknown action; use start, stop, pause, resume or replay-dead-letters");
			}
		}
		catch (IllegalArgumentException | IllegalStateException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
		}
		SubscriptionControl control = this.registry.listener(id);
		return new ListenerRequested(id, action, (control != null) ? control.state().name() : "UNKNOWN");
	}

	private DeadLettersReplayed replay(String id) {
		DeadLetters replayer = this.deadLetters;
		if (replayer == null) {
			throw new InvalidEndpointRequestException("No dead letters",
					"Dead letters are replayed with postlog.listener.error-handler=dead-letter");
		}
		try {
			DeadLetters.Replay replay = replayer.replay(id);
			return new DeadLettersReplayed(id, replay.replayed(), replay.remaining(), replay.failedChange(),
					replay.failure());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
		}
	}

	/**
	 * Starts a backfill: {@code POST /actuator/postlog/backfill}.
	 * @param operation {@code backfill}
	 * @param tables comma-separated tables, {@code schema.table} or {@code table}
	 * ({@code public})
	 * @param group the consumer group, or {@code null} for the default one
	 * @return the backfill's id ({@link BackfillStarted}, 200), or why it was refused
	 * ({@link BackfillRefused}, 429) when the group holds as many unfinished backfills as
	 * it may
	 */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> backfill(@Selector String operation, String tables,
			@Nullable String group) {
		if (!"backfill".equals(operation)) {
			throw new InvalidEndpointRequestException("Unknown operation '" + operation + "'",
					"Unknown operation; POST to /actuator/postlog/backfill");
		}
		List<TableId> ids = new ArrayList<>();
		for (String table : tables.split(",")) {
			if (!table.isBlank()) {
				ids.add(TableId.parse(table.trim()));
			}
		}
		if (ids.isEmpty()) {
			throw new InvalidEndpointRequestException("No tables", "Name the tables to backfill in \"tables\"");
		}
		String name = (group != null) ? group : PostlogConsumerGroup.DEFAULT;
		PostlogConsumerGroup target = this.registry.groups()
			.stream()
			.filter((candidate) -> candidate.name().equals(name))
			.findFirst()
			.orElseThrow(() -> new InvalidEndpointRequestException("No consumer group '" + name + "'",
					"No such consumer group"));
		Backfill backfill;
		try {
			backfill = target.backfill(ids);
		}
		catch (BackfillQueueFullException ex) {
			return new WebEndpointResponse<>(new BackfillRefused(ex.getMessage(), target.displayName(), ex.maxQueued()),
					WebEndpointResponse.STATUS_TOO_MANY_REQUESTS);
		}
		return new WebEndpointResponse<>(new BackfillStarted(backfill.id(), target.displayName(),
				backfill.tables().stream().map(TableId::toString).toList()));
	}

	private @Nullable StreamingDescriptor streaming() {
		PostlogStreamingMonitor streaming = this.streaming;
		if (streaming == null) {
			return null;
		}
		SlotStatistics server = streaming.serverStatistics();
		return new StreamingDescriptor(streaming.enabled(), streaming.spilledBytes(), streaming.spilledBytesTotal(),
				(server != null) ? server.spillBytes() : null, (server != null) ? server.streamBytes() : null);
	}

	/**
	 * The endpoint's response.
	 *
	 * @param consumers the consumers, one per group, the default group first
	 * @param server the server's replication slots and settings
	 */
	public record PostlogDescriptor(List<ConsumerDescriptor> consumers,
			ServerSection server) implements OperationResponseBody {
	}

	/**
	 * The server's slots and settings, or why they cannot be shown.
	 */
	public sealed interface ServerSection permits ServerDescriptor, Unavailable {

	}

	/**
	 * A consumer's replication slot, or why it cannot be shown.
	 */
	public sealed interface SlotSection permits SlotDescriptor, Unavailable {

	}

	/**
	 * A consumer's publication, or why it cannot be shown.
	 */
	public sealed interface PublicationSection permits PublicationDescriptor, Unavailable {

	}

	/**
	 * A section that depends on the server, which could not be read.
	 *
	 * @param status always {@code unavailable}
	 * @param reason why, value-free
	 * @param lastContact when the server was last read, or {@code null} if never
	 */
	public record Unavailable(String status, String reason,
			@Nullable String lastContact) implements ServerSection, SlotSection, PublicationSection {

		static Unavailable of(PostlogSlotMonitor.Reading reading) {
			return new Unavailable("unavailable", reading.unavailableReason(),
					(reading.lastContact() != null) ? reading.lastContact().toString() : null);
		}

	}

	/**
	 * The server postlog streams from.
	 *
	 * @param version its {@code server_version_num}
	 * @param inRecovery whether it is a standby
	 * @param walPosition its WAL position
	 * @param settings the replication settings that matter
	 * @param slots every logical slot, of every database
	 * @param readAt when the server was read: the latest background reading, which a call
	 * older than a second asks to be taken again and waits 250 ms for
	 */
	public record ServerDescriptor(int version, boolean inRecovery, String walPosition, SettingsDescriptor settings,
			List<ServerSlotDescriptor> slots, @Nullable String readAt) implements ServerSection {
	}

	/**
	 * The server's replication settings and their use. A setting the server version does
	 * not have is {@code null}.
	 *
	 * @param maxReplicationSlots {@code max_replication_slots}
	 * @param usedReplicationSlots slots that exist
	 * @param maxWalSenders {@code max_wal_senders}
	 * @param usedWalSenders WAL senders running
	 * @param maxSlotWalKeepSize {@code max_slot_wal_keep_size} in bytes, {@code null}
	 * when unbounded
	 * @param walSenderTimeout {@code wal_sender_timeout}
	 * @param idleReplicationSlotTimeout {@code idle_replication_slot_timeout} (18+)
	 * @param synchronizedStandbySlots {@code synchronized_standby_slots} (17+)
	 * @param syncReplicationSlots {@code sync_replication_slots} (17+)
	 */
	public record SettingsDescriptor(int maxReplicationSlots, int usedReplicationSlots, int maxWalSenders,
			int usedWalSenders, @Nullable Long maxSlotWalKeepSize, String walSenderTimeout,
			@Nullable String idleReplicationSlotTimeout, @Nullable String synchronizedStandbySlots,
			@Nullable Boolean syncReplicationSlots) {
	}

	/**
	 * One logical slot of the server. Columns the server version does not have are
	 * {@code null}.
	 *
	 * @param name the slot's name
	 * @param plugin its output plugin
	 * @param database the database it decodes
	 * @param postlog whether it is this application's slot
	 * @param active whether a connection streams from it
	 * @param activePid that connection's process
	 * @param temporary whether it ends with its session
	 * @param restartLsn the oldest WAL it retains
	 * @param confirmedFlushLsn its confirmed position
	 * @param retainedBytes the WAL it makes the server keep
	 * @param walStatus {@code wal_status} (13+)
	 * @param safeWalSize {@code safe_wal_size} (13+)
	 * @param inactiveSince when its reader left (17+)
	 * @param failover whether it fails over to standbys (17+)
	 * @param synced whether it was synchronised from a primary (17+)
	 * @param conflicting whether a recovery conflict invalidated it (16+)
	 * @param invalidationReason why it was invalidated (17+)
	 */
	public record ServerSlotDescriptor(String name, @Nullable String plugin, @Nullable String database, boolean postlog,
			boolean active, @Nullable Integer activePid, boolean temporary, @Nullable String restartLsn,
			@Nullable String confirmedFlushLsn, @Nullable Long retainedBytes, @Nullable String walStatus,
			@Nullable Long safeWalSize, @Nullable String inactiveSince, @Nullable Boolean failover,
			@Nullable Boolean synced, @Nullable Boolean conflicting, @Nullable String invalidationReason) {
	}

	/**
	 * One consumer: a group's.
	 *
	 * @param group the group's name, {@code default} for the default group
	 * @param state the consumer's state, {@code NOT_STARTED} when none runs
	 * @param ackedLsn the position acknowledged to the server
	 * @param lastCommitTime the commit time of the last transaction delivered
	 * @param lastError the latest failure: postlog's message, or only the class of an
	 * exception that is not postlog's unless
	 * {@code postlog.endpoint.show-exception-messages}
	 * @param listeners the listener methods, in delivery order, each with its last error
	 * (its {@code message} only with {@code postlog.endpoint.show-exception-messages})
	 * @param slot the replication slot, or why it cannot be shown
	 * @param publication the publication, or why it cannot be shown
	 * @param serverLsn the server's current WAL position, {@code null} while the server
	 * cannot be read
	 * @param lagBytes the WAL the slot retains beyond its confirmed position
	 * @param streaming large transactions: the consumer's and the server's spill
	 * @param snapshot the initial snapshot, while it runs or once handed over; or
	 * {@code null} when none was taken by this consumer and none is being taken
	 * @param backfills the consumer's backfills, running and finished
	 * @param details what a consumer beside the groups adds (a Kafka relay's position in
	 * Kafka, for example), empty for a group's
	 */
	public record ConsumerDescriptor(String group, String state, @Nullable String ackedLsn,
			@Nullable String lastCommitTime, @Nullable String lastError,
			List<PostlogConsumerGroup.ListenerInfo> listeners, SlotSection slot, PublicationSection publication,
			@Nullable String serverLsn, @Nullable Long lagBytes, @Nullable StreamingDescriptor streaming,
			@Nullable SnapshotDescriptor snapshot, List<BackfillDescriptor> backfills, Map<String, Object> details) {
	}

	/**
	 * A backfill of the consumer's.
	 *
	 * @param id its id
	 * @param state {@code PENDING}, {@code RUNNING}, {@code COMPLETED}, {@code CANCELLED}
	 * or {@code FAILED}
	 * @param tables its tables
	 * @param rowsDone rows handled over all tables
	 * @param rowsEstimated rows the catalog expects, {@code -1} when unknown
	 * @param progress per table
	 * @param failure why it failed (as {@code lastError} shows failures), or {@code null}
	 */
	public record BackfillDescriptor(String id, String state, List<String> tables, long rowsDone, long rowsEstimated,
			List<TableProgressDescriptor> progress, @Nullable String failure) {
	}

	/**
	 * A consumer's initial snapshot.
	 *
	 * @param state {@code RUNNING} while this consumer delivers it, {@code COMPLETE} once
	 * handed over, {@code ELSEWHERE} while another instance takes it (its temporary slot
	 * exists)
	 * @param consistentPoint its consistent point, where the stream takes over
	 * @param rowsDone rows delivered to the listeners
	 * @param rowsEstimated rows the catalog expects, {@code -1} when a table's estimate
	 * is unknown
	 * @param tables each table's progress
	 * @param temporarySlot the snapshot's temporary slot while the permanent one does not
	 * exist yet (PostgreSQL 12+)
	 */
	public record SnapshotDescriptor(String state, @Nullable String consistentPoint, @Nullable Long rowsDone,
			@Nullable Long rowsEstimated, List<TableProgressDescriptor> tables, @Nullable String temporarySlot) {
	}

	/**
	 * The snapshot of one table.
	 *
	 * @param table the table
	 * @param rowsDone rows delivered
	 * @param rowsEstimated rows the catalog expects, {@code -1} when unknown
	 * @param chunksDone chunks read to the end
	 * @param chunksTotal chunks the table was split into
	 * @param done whether every row was delivered
	 */
	public record TableProgressDescriptor(String table, long rowsDone, long rowsEstimated, int chunksDone,
			int chunksTotal, boolean done) {
	}

	/**
	 * Large transactions of a consumer's slot.
	 *
	 * @param enabled whether the consumer streams in-progress transactions
	 * @param spilledBytes bytes of the consumer's spill files on disk now
	 * @param spilledBytesTotal bytes the consumer wrote to spill files since it started
	 * @param serverSpillBytes bytes the server spilled to its own disk for the slot
	 * ({@code pg_stat_replication_slots.spill_bytes}, PostgreSQL 14+)
	 * @param serverStreamBytes bytes the server streamed for the slot before their commit
	 * ({@code stream_bytes}, PostgreSQL 14+)
	 */
	public record StreamingDescriptor(boolean enabled, long spilledBytes, long spilledBytesTotal,
			@Nullable Long serverSpillBytes, @Nullable Long serverStreamBytes) {
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
			@Nullable String confirmedFlushLsn, @Nullable String restartLsn,
			@Nullable String walStatus) implements SlotSection {
	}

	/**
	 * A publication.
	 *
	 * @param name the publication's name
	 * @param tables the tables it publishes
	 * @param filters the row filter and column list in force, by table, for the tables
	 * published with one (PostgreSQL 15 and later)
	 */
	public record PublicationDescriptor(String name, List<String> tables,
			Map<String, FilterDescriptor> filters) implements PublicationSection {
	}

	/**
	 * A table's row filter and column list, as the server holds them.
	 *
	 * @param where the row filter, or {@code null} for every row
	 * @param columns the published columns, empty for every column
	 */
	public record FilterDescriptor(@Nullable String where, List<String> columns) {
	}

}
