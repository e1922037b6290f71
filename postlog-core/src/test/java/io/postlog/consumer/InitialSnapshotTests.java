package io.postlog.consumer;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.ReplicationConsumerException;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.ConsumerThreads;
import io.postlog.consumer.delivery.Dispatcher;
import io.postlog.consumer.delivery.Event;
import io.postlog.consumer.delivery.Heartbeats;
import io.postlog.consumer.delivery.StopSignal;
import io.postlog.decoder.PgOutputLogicalDecoder;
import io.postlog.snapshot.InvalidSnapshotNameException;
import io.postlog.snapshot.SnapshotReadException;
import io.postlog.snapshot.SnapshotRefusedException;
import io.postlog.types.ValueDecoders;
import io.postlog.types.ValueDecodingException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The initial snapshot's parts that need no server: the refusals at build, how its
 * failures are classified, the {@code SNAPSHOT} state, and the dispatcher's delivery of
 * snapshot batches to change, lane, transaction and acknowledging subscriptions.
 */
class InitialSnapshotTests {

	private static final Lsn POINT = Lsn.parse("0/5000028");

	private static final TableId TABLE = TableId.parse("public.items");

	private final List<Dispatcher> dispatchers = new ArrayList<>();

	@AfterEach
	void closeDispatchers() {
		this.dispatchers.forEach(Dispatcher::close);
	}

	@Test
	void buildRefusesASnapshotForATemporarySlot() {
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> builder().slotLifecycle(SlotLifecycle.TEMPORARY).build())
			.withMessageContaining("temporary slot ends with it")
			.withMessageContaining("OWNED");
	}

	@Test
	void buildRefusesASnapshotWithATransactionalCheckpointStoreButNoBackfills() {
		CheckpointStore transactional = JdbcCheckpointStore.builder(dataSource(), "snapshot_slot").build();
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> builder().checkpointStore(transactional).build())
			.withMessageContaining("resumes after a crash through a backfill")
			.withMessageContaining("turn backfills on");
	}

	@Test
	void buildAcceptsASnapshotWithTheJdbcCheckpointStoreAndBackfills() {
		CheckpointStore transactional = JdbcCheckpointStore.builder(dataSource(), "snapshot_slot").build();
		assertThat(builder().checkpointStore(transactional).backfills(1000).build()).isNotNull();
	}

	@Test
	void buildRefusesASnapshotWithATransactionalStoreThatDoesNotRecordChunks() {
		CheckpointStore transactional = new TransactionalCheckpointTests.MemorySink();
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> builder().checkpointStore(transactional).backfills(1000).build())
			.withMessageContaining("does not record (recordsChunks())");
	}

	@Test
	void buildRefusesASnapshotForAFailoverSlot() {
		assertThatExceptionOfType(ReplicationConsumerException.class).isThrownBy(() -> builder().failover(true).build())
			.withMessageContaining("PostgreSQL creates without failover")
			.withMessageContaining("ALTER_REPLICATION_SLOT");
	}

	@Test
	void buildRefusesASnapshotWithoutReplicationConnectionsOfItsOwn() {
		assertThatExceptionOfType(ReplicationConsumerException.class).isThrownBy(() -> ReplicationConsumer.builder()
			.streamFactory(new FakeServer())
			.adminDataSource(dataSource())
			.initialSnapshot(2, 1000)
			.changeHandler((change) -> {
			})
			.build()).withMessageContaining("not streamFactory");
	}

	@Test
	void buildRefusesASnapshotThatCannotOpenReaderConnections() {
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> ReplicationConsumer.builder().connectionFactory(() -> {
				throw new SQLException("not used");
			}).initialSnapshot(2, 1000).changeHandler((change) -> {
			}).build())
			.withMessageContaining("set snapshotConnections, adminDataSource or jdbcUrl");
	}

	@Test
	void buildRefusesParallelismAndChunkSizeOutOfRange() {
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> builder().initialSnapshot(0, 1000).build())
			.withMessageContaining("parallelism must be 1 to 64, not 0");
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> builder().initialSnapshot(65, 1000).build())
			.withMessageContaining("not 65");
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> builder().initialSnapshot(2, 0).build())
			.withMessageContaining("chunk size must be at least 1");
	}

	@Test
	void snapshotFailuresAreClassifiedByWhatRetryingCanDo() {
		assertThat(Failures.classify(new SnapshotRefusedException("no"))).isEqualTo(Failures.Outcome.FATAL);
		assertThat(Failures.classify(new InvalidSnapshotNameException("x'; DROP"))).isEqualTo(Failures.Outcome.FATAL);
		assertThat(Failures.classify(new SnapshotReadException("decoding", TABLE, "1 of 1",
				new ValueDecodingException(1700, "bad numeric"))))
			.isEqualTo(Failures.Outcome.FATAL);
		assertThat(Failures
			.classify(new SnapshotReadException("reading", TABLE, "1 of 1", new SQLException("gone", "08006"))))
			.isEqualTo(Failures.Outcome.CONNECTION);
		assertThat(Failures
			.classify(new SnapshotReadException("reading", TABLE, "1 of 1", new SQLException("canceled", "57014"))))
			.isEqualTo(Failures.Outcome.OTHER);
	}

	@Test
	void aSubscriptionRetryingDuringTheSnapshotReturnsToSnapshot() {
		ReplicationConsumerTests.Recorder recorder = new ReplicationConsumerTests.Recorder();
		ConsumerStates states = new ConsumerStates(recorder, "snapshot_slot");
		states.moveTo(ConsumerState.STARTING, null);
		states.snapshot();
		states.subscriptionRetrying(new IllegalStateException("once"));
		states.subscriptionRecovered();
		states.streaming();
		assertThat(recorder.states).containsExactly(ConsumerState.STARTING, ConsumerState.SNAPSHOT,
				ConsumerState.RETRYING, ConsumerState.SNAPSHOT, ConsumerState.RUNNING);
	}

	@Test
	void everySnapshotRowReachesChangeSubscriptionsWhateverItsIndex() throws Exception {
		List<Change> serial = new CopyOnWriteArrayList<>();
		Map<String, Change> lanes = new ConcurrentHashMap<>();
		List<Transaction> batches = new CopyOnWriteArrayList<>();
		AckWindow window = new AckWindow((acked) -> {
		}, "snapshot_slot");
		Dispatcher dispatcher = dispatcher(window,
				Subscription.onChange("serial", (Change change) -> serial.add(change)),
				Subscription.onChange("lanes", (Change change) -> lanes.put(change.id(), change)).withConcurrency(3),
				Subscription.onTransaction("batches", (Transaction batch) -> batches.add(batch)));
		// Indexes restart in every chunk; two batches of one chunk, one of the next.
		dispatcher.snapshot(rows(0, 0, 256), POINT, Instant.EPOCH);
		dispatcher.snapshot(rows(0, 256, 44), POINT, Instant.EPOCH);
		dispatcher.snapshot(rows(1, 0, 10), POINT, Instant.EPOCH);
		dispatcher.awaitLanes();
		assertThat(serial).hasSize(310);
		assertThat(lanes).hasSize(310);
		assertThat(batches).extracting((batch) -> batch.changes().size()).containsExactly(256, 44, 10);
		assertThat(batches).allSatisfy((batch) -> {
			assertThat(batch.xid()).isZero();
			assertThat(batch.commitLsn()).isEqualTo(POINT);
			assertThat(batch.endLsn()).isEqualTo(POINT);
		});
		await().until(() -> window.size() == 0);
		assertThat(window.acked()).isEqualTo(POINT);
	}

	@Test
	void aSnapshotBatchIsHeldUntilItsAcknowledgmentsComeAndForgottenWhenAbandoned() throws Exception {
		Map<String, Acknowledgment> acks = new ConcurrentHashMap<>();
		AckWindow window = new AckWindow((acked) -> {
		}, "snapshot_slot");
		Dispatcher dispatcher = dispatcher(window,
				Subscription.onChange("deferred", (Change change, Acknowledgment ack) -> acks.put(change.id(), ack)));
		dispatcher.snapshot(rows(0, 0, 3), POINT, Instant.EPOCH);
		dispatcher.snapshot(rows(0, 3, 3), POINT, Instant.EPOCH);
		assertThat(window.size()).isEqualTo(2);
		acks.values().forEach(Acknowledgment::acknowledge);
		assertThat(window.size()).isZero();
		dispatcher.snapshot(rows(1, 0, 3), POINT, Instant.EPOCH);
		assertThat(window.size()).isEqualTo(1);
		window.forgetSnapshot(POINT);
		assertThat(window.size()).isZero();
	}

	private Dispatcher dispatcher(AckWindow window, Subscription... subscriptions) {
		ConsumerConfig config = new ConsumerConfig("snapshot_slot", SlotLifecycle.CREATE_IF_MISSING, "snapshot_pub",
				PublicationMode.CREATE_IF_MISSING, List.of(), Map.of(), true,
				PgOutputLogicalDecoder.forPublications(List.of("snapshot_pub")), RetryPolicy.DEFAULT,
				ReconnectPolicy.DEFAULT, Duration.ofSeconds(10), Duration.ofSeconds(10), 100_000, 1000, 1024, 1 << 20,
				Duration.ofSeconds(5), new ConsumerListener() {
				}, ValueDecoders.standard(), List.of(subscriptions), new FakeServer(), null,
				SlotOnlyCheckpointStore.INSTANCE, 1, Duration.ofMillis(100), null,
				new WalSafety(false, LostSlotAction.FAIL, null, null), null, null, Duration.ofSeconds(60), null, false);
		ConsumerStates states = new ConsumerStates(config.listener(), config.slotName());
		Dispatcher dispatcher = ConsumerDispatch.dispatcher(config, window, states, new StopSignal(),
				new ConsumerThreads((thread, cause) -> {
				}), Heartbeats.NONE,
				new SubscriptionControls(config.subscriptions(), config.slotName(), true, config.listener()),
				(cause) -> {
				});
		this.dispatchers.add(dispatcher);
		return dispatcher;
	}

	/** Snapshot rows of one chunk of block {@code block}, from {@code index} on. */
	private static List<Event.ChangeArrived> rows(int block, int index, int count) {
		List<Event.ChangeArrived> rows = new ArrayList<>();
		for (int i = index; i < index + count; i++) {
			String id = "snapshot_slot/" + POINT + "/snapshot/16384/" + block + "." + (i + 1);
			Change change = new Change(Operation.SNAPSHOT, TABLE, null, Row.of(Map.of("id", i)), 0, POINT,
					Instant.EPOCH, i, id);
			rows.add(new Event.ChangeArrived(change, id.hashCode(), id.hashCode(), 16));
		}
		return rows;
	}

	private static ReplicationConsumer.Builder builder() {
		return ReplicationConsumer.builder()
			.jdbcUrl("jdbc:postgresql://localhost:1/none", "nobody", null)
			.initialSnapshot(2, 1000)
			.changeHandler((change) -> {
			});
	}

	private static DataSource dataSource() {
		return new org.postgresql.ds.PGSimpleDataSource();
	}

}
