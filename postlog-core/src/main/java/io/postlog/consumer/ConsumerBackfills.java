package io.postlog.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.consumer.backfill.BackfillHost;
import io.postlog.consumer.backfill.BackfillJob;
import io.postlog.consumer.backfill.BackfillRunner;
import io.postlog.consumer.backfill.BackfillSettings;
import io.postlog.consumer.backfill.BackfillWindow;
import io.postlog.consumer.backfill.Downstream;
import io.postlog.consumer.backfill.SnapshotChunkRecord;
import io.postlog.consumer.checkpoint.ChunkMark;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.Dispatcher;
import io.postlog.consumer.delivery.Event;
import io.postlog.snapshot.BackfillReader;
import io.postlog.types.ValueDecoders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer's backfills, made only when backfills are on: the window the backfill room
 * puts in front of the {@link Dispatcher}, the runner the backfill thread runs, and the
 * record of a resumable initial snapshot's chunks. It is the room's {@link BackfillHost}
 * (the slot, the policies, the consumer's state, the listener), and it shows each of the
 * room's backfills to users as one {@link Backfill}. Thread-safe.
 */
final class ConsumerBackfills implements BackfillHost {

	/** Logs as the backfill runner does, whose work this finishes. */
	private static final Logger logger = LoggerFactory.getLogger(BackfillRunner.class);

	private final ConsumerConfig config;

	private final BackfillSettings settings;

	private final ConsumerStates states;

	private final BackfillWindow window;

	private final BackfillRunner runner;

	private final SnapshotChunkRecord chunkRecord;

	/** The backfill each of the room's backfills is shown as, made once. */
	private final Map<BackfillJob, Backfill> shown = new ConcurrentHashMap<>();

	ConsumerBackfills(ConsumerConfig config, BackfillSettings settings, ConsumerStates states, Dispatcher dispatcher,
			AckWindow ackWindow, ValueDecoders decoders, int serverVersion, boolean binary, boolean snapshots) {
		this.config = config;
		this.settings = settings;
		this.states = states;
		this.window = new BackfillWindow(this, config.maxTransactionChanges(), new Dispatch(dispatcher), settings,
				serverVersion);
		this.runner = new BackfillRunner(this, settings, this.window, ackWindow, decoders, serverVersion, binary,
				snapshots);
		this.chunkRecord = new SnapshotChunkRecord(this, settings, this.runner,
				new BackfillReader(decoders, serverVersion), serverVersion);
	}

	/** The window in front of the dispatcher, on the delivery thread. */
	BackfillWindow window() {
		return this.window;
	}

	/** The body of the backfill thread. */
	BackfillRunner runner() {
		return this.runner;
	}

	/** Where a resumable initial snapshot records its chunks. */
	SnapshotChunkRecord chunkRecord() {
		return this.chunkRecord;
	}

	/**
	 * Submits a backfill asked for by a user ({@link ReplicationConsumer#backfill}).
	 * @throws BackfillQueueFullException if the consumer holds as many unfinished
	 * backfills as it may
	 */
	Backfill request(Collection<TableId> tables) {
		BackfillJob backfill = this.runner.request(tables);
		if (backfill == null) {
			throw new BackfillQueueFullException(this.config.slotName(), this.settings.maxQueued());
		}
		return shown(backfill);
	}

	/** Submits a backfill of the tables the publication added at start. */
	void submit(Collection<TableId> tables) {
		shown(this.runner.submit(tables));
	}

	/** The backfills run or running, including those resumed. */
	List<Backfill> backfills() {
		return this.runner.backfills().stream().map(this::shown).toList();
	}

	/** Asks the backfill thread to end. */
	void stop() {
		this.runner.stop();
	}

	private Backfill shown(BackfillJob backfill) {
		return this.shown.computeIfAbsent(backfill, Backfill::new);
	}

	@Override
	public String slotName() {
		return this.config.slotName();
	}

	@Override
	public String publicationName() {
		return this.config.publicationName();
	}

	@Override
	public boolean canRetry(int failedAttempts) {
		return this.config.retryPolicy().canRetry(failedAttempts);
	}

	@Override
	public Duration retryBackOff(int failedAttempts) {
		return this.config.retryPolicy().backOff(failedAttempts);
	}

	@Override
	public Duration reconnectBackOff(int failedAttempts) {
		return this.config.reconnectPolicy().backOff(failedAttempts);
	}

	@Override
	public boolean streaming() {
		ConsumerState state = this.states.get();
		return state == ConsumerState.RUNNING || state == ConsumerState.RETRYING;
	}

	@Override
	public boolean ended() {
		ConsumerState state = this.states.get();
		return state == ConsumerState.FAILED || state == ConsumerState.STOPPED;
	}

	@Override
	public String describe(Throwable failure) {
		return Failures.describe(failure);
	}

	@Override
	public void started(BackfillJob backfill) {
		this.config.listener().backfillStarted(shown(backfill));
	}

	@Override
	public void completed(BackfillJob backfill) {
		this.config.listener().backfillCompleted(shown(backfill));
	}

	@Override
	public boolean effectOnce() {
		return this.config.checkpointStore().transactional();
	}

	@Override
	public Map<Integer, ChunkMark> chunkMarks(String backfillId) {
		return effectOnce() ? this.config.checkpointStore().chunks(backfillId) : Map.of();
	}

	@Override
	public void forgetChunkMarks(String backfillId) {
		if (!effectOnce()) {
			return;
		}
		try {
			this.config.checkpointStore().forgetChunks(backfillId);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not delete the chunk marks of backfill {} of slot {} from {}: {}", backfillId,
					this.config.slotName(), this.config.checkpointStore(), Failures.describe(ex));
		}
	}

	/** The dispatcher, as the window hands events on to it. */
	private record Dispatch(Dispatcher dispatcher) implements Downstream {

		@Override
		public void deliver(Event event) throws InterruptedException {
			this.dispatcher.deliver(event);
		}

		@Override
		public boolean inTransaction() {
			return this.dispatcher.inTransaction();
		}

		@Override
		public AckWindow.Entry snapshot(List<Event.ChangeArrived> rows, Lsn point, Instant time)
				throws InterruptedException {
			return this.dispatcher.snapshot(rows, point, time);
		}

		@Override
		public void chunkDone(ChunkMark mark) {
			this.dispatcher.chunkDone(mark);
		}

	}

}
