package io.postlog.consumer;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.admin.PgErrors;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.consumer.backfill.BackfillSettings;
import io.postlog.consumer.backfill.SnapshotChunkRecord;
import io.postlog.consumer.checkpoint.ChunkMark;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.Dispatcher;
import io.postlog.consumer.delivery.Event;
import io.postlog.consumer.delivery.Lanes;
import io.postlog.consumer.delivery.StopSignal;
import io.postlog.snapshot.ChunkRange;
import io.postlog.snapshot.ExportedSnapshot;
import io.postlog.snapshot.SnapshotHandOff;
import io.postlog.snapshot.SnapshotOptions;
import io.postlog.snapshot.SnapshotReader;
import io.postlog.snapshot.SnapshotRefusedException;
import io.postlog.snapshot.SnapshotResult;
import io.postlog.snapshot.SnapshotSink;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The initial snapshot inside the consumer, run on the delivery thread before the first
 * stream. It takes the slot's crash-safe hand-off ({@link SnapshotHandOff}); when that
 * asks for a snapshot, it reads every table of the publication under the slot's exported
 * snapshot ({@link SnapshotReader}) and delivers the rows through the {@link Dispatcher}
 * in batches, to the same subscriptions and lanes as stream changes. Only once every
 * batch is finished (handlers returned, lanes passed it, every {@code Acknowledgment}
 * acknowledged) is the slot handed over; the stream then starts at the consistent point.
 * <p>
 * <b>Resumable</b> when the consumer runs backfills, its slot is not temporary, and every
 * published table has a key and is not partitioned: the permanent slot is created with
 * the exported snapshot at the start ({@link SnapshotHandOff.Method#RESUMABLE}), every
 * chunk the reader plans is recorded in the backfill progress table (as one part of a
 * backfill whose id begins with {@code snapshot-}) before the first row is delivered, and
 * each chunk is marked done there once every subscription finished its rows. A crash or a
 * stop then leaves the slot at the snapshot's consistent point and the chunks not done on
 * record: the next start ({@link SnapshotHandOff.Action#RESUME}) streams from the
 * consistent point while the {@link BackfillRunner} reads those chunks between
 * watermarks, so rows deleted meanwhile arrive as {@code DELETE} and no listener has to
 * start its model over. With a transactional {@link CheckpointStore} it is read on one
 * connection, chunk after chunk, and each chunk's rows commit in one sink transaction
 * with the chunk's mark ({@link Dispatcher#chunkDone}); a snapshot that could not resume
 * is refused then. Otherwise a failure or a stop before the hand-over leaves nothing to
 * stream from (PostgreSQL 12+) or a marker that says {@code started} (10, 11), so the
 * next attempt, in this process or another, snapshots again. Not thread-safe but for
 * {@link #cancel()} and {@link #progress()}.
 */
final class InitialSnapshot {

	private static final Logger logger = LoggerFactory.getLogger(InitialSnapshot.class);

	private static final int BATCH = 256;

	private final ConsumerConfig config;

	private final SnapshotSettings settings;

	private final @Nullable TableId heartbeatTable;

	private final AdminConnections admin;

	private final ValueDecoders decoders;

	private final Dispatcher dispatcher;

	private final AckWindow window;

	private final ConsumerStates states;

	private final StopSignal stop;

	private final @Nullable SnapshotChunkRecord chunkRecord;

	private final boolean routing;

	private final int batchSize;

	private boolean pending = true;

	private volatile boolean cancelled;

	private volatile @Nullable Connection exporting;

	private volatile @Nullable SnapshotReader reader;

	private volatile @Nullable Lsn consistentPoint;

	private volatile @Nullable SnapshotProgress completed;

	InitialSnapshot(ConsumerConfig config, SnapshotSettings settings, @Nullable TableId heartbeatTable,
			AdminConnections admin, ValueDecoders decoders, Dispatcher dispatcher, AckWindow window,
			ConsumerStates states, StopSignal stop, @Nullable SnapshotChunkRecord chunkRecord) {
		this.config = config;
		this.settings = settings;
		this.heartbeatTable = heartbeatTable;
		this.admin = admin;
		this.decoders = decoders;
		this.dispatcher = dispatcher;
		this.window = window;
		this.states = states;
		this.stop = stop;
		this.chunkRecord = chunkRecord;
		this.routing = config.subscriptions().stream().anyMatch((s) -> s.concurrency() > 1);
		this.batchSize = Math.min(BATCH, config.maxTransactionChanges());
	}

	/**
	 * Returns whether the hand-off is still to be taken: until this process has handed a
	 * snapshot over, or found that the slot exists.
	 * @return whether {@link #run()} is to run before the next stream
	 */
	boolean pending() {
		return this.pending;
	}

	/**
	 * Makes the hand-off to be taken again before the next stream: the slot was lost and
	 * dropped, and a new snapshot creates it.
	 */
	void again() {
		this.pending = true;
		this.completed = null;
	}

	/**
	 * Takes the hand-off, and the snapshot when it asks for one. Returns when the slot
	 * may be streamed from its confirmed position; throws otherwise, leaving the hand-off
	 * to be taken again.
	 * @throws io.postlog.admin.SlotInUseException if another process snapshots or streams
	 * the slot
	 * @throws io.postlog.snapshot.SnapshotException if the snapshot cannot be taken, read
	 * or handed over
	 * @throws StopSignal.StopRequested if a stop ended it
	 * @throws InterruptedException if interrupted while delivering
	 */
	void run() throws InterruptedException {
		String slot = this.config.slotName();
		SnapshotChunkRecord record = resumable();
		if (record == null && this.config.checkpointStore().transactional()) {
			throw new SnapshotRefusedException("The initial snapshot of slot " + slot + " cannot be delivered "
					+ "effect-once into the sink transactions of " + this.config.checkpointStore()
					+ ": a crash could not resume it (a published table has no key or is partitioned, or backfills "
					+ "are off); key the tables, or use the slot-only store with it");
		}
		Connection replication = connect();
		try (SnapshotHandOff handOff = SnapshotHandOff.open(replication, slot, this.config.slotLifecycle(),
				this.settings.markerTable(), record != null)) {
			if (handOff.method() == SnapshotHandOff.Method.MARKER_TABLE
					|| handOff.method() == SnapshotHandOff.Method.RESUMABLE) {
				// A publication of all tables publishes the marker's updates too.
				this.dispatcher.ignore(this.settings.markerTable());
			}
			Export export = decide(handOff, replication, record);
			if (export == null) {
				this.pending = false;
				return;
			}
			ExportedSnapshot snapshot = export.snapshot();
			try {
				ResumableChunks chunks = (record != null)
						? new ResumableChunks(record, handOff, this.admin, this.window, slot) : null;
				SnapshotResult result = deliver(snapshot, export.tables(), chunks);
				if (chunks != null) {
					this.admin.apply("Removing the chunks of slot " + slot + "'s snapshot", (connection) -> {
						record.forget(connection, chunks.id());
						return null;
					});
				}
				this.admin.apply("Handing slot " + slot + " over to its stream", handOff::complete);
				if (chunks != null && this.config.checkpointStore().transactional()) {
					forgetMarks(chunks.id());
				}
				this.window.baseline(snapshot.consistentPoint());
				this.pending = false;
				SnapshotProgress progress = new SnapshotProgress(snapshot.consistentPoint(), result.tables(), true);
				this.completed = progress;
				notifyCompleted(progress);
			}
			catch (RuntimeException | InterruptedException | Error ex) {
				abandoned(snapshot.consistentPoint());
				throw ex;
			}
		}
		finally {
			this.reader = null;
		}
	}

	/**
	 * Asks a running snapshot to end: its read stops, and a slot creation waiting for a
	 * consistent point is broken off. Thread-safe.
	 */
	void cancel() {
		this.cancelled = true;
		SnapshotReader current = this.reader;
		if (current != null) {
			current.cancel();
		}
		Connection connection = this.exporting;
		if (connection != null) {
			try {
				connection.abort(Runnable::run);
			}
			catch (SQLException | RuntimeException ex) {
				logger.debug("Breaking off the snapshot's replication connection failed", ex);
			}
		}
	}

	/**
	 * Returns the progress of the snapshot being delivered, or of the one handed over.
	 * Thread-safe.
	 * @return the progress, or {@code null} while none is being delivered and none was
	 */
	@Nullable SnapshotProgress progress() {
		SnapshotProgress done = this.completed;
		if (done != null) {
			return done;
		}
		Lsn point = this.consistentPoint;
		SnapshotReader current = this.reader;
		return (point != null) ? new SnapshotProgress(point, (current != null) ? current.progress() : List.of(), false)
				: null;
	}

	private Connection connect() {
		Properties properties = new Properties();
		int seconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, this.config.connectTimeout().toSeconds()));
		PGProperty.CONNECT_TIMEOUT.set(properties, seconds);
		PGProperty.LOGIN_TIMEOUT.set(properties, seconds);
		PGProperty.TCP_KEEP_ALIVE.set(properties, true);
		PGProperty.LOG_SERVER_ERROR_DETAIL.set(properties, false);
		try {
			return this.settings.replication().connect(properties);
		}
		catch (SQLException ex) {
			throw PgErrors.translateReplication(ex, this.config.slotName(), false,
					"Could not open a replication connection for the initial snapshot of slot '"
							+ this.config.slotName() + "'");
		}
	}

	/**
	 * Decides on the hand-off and, for a snapshot, exports it (waiting for the
	 * transactions running then; a stop breaks the wait off), on one admin connection:
	 * without a pool each admin connection is opened afresh. Returns {@code null} to
	 * stream the slot.
	 */
	private @Nullable Export decide(SnapshotHandOff handOff, Connection replication,
			@Nullable SnapshotChunkRecord record) {
		this.exporting = replication;
		try {
			return this.admin.apply("Deciding on the initial snapshot of slot " + this.config.slotName(),
					(connection) -> {
						SnapshotHandOff.Decision decision = handOff.decide(connection);
						if (decision.action() == SnapshotHandOff.Action.RESUME && record != null) {
							record.resume(connection);
						}
						if (decision.action() != SnapshotHandOff.Action.SNAPSHOT) {
							return null;
						}
						this.states.snapshot();
						if (this.cancelled) {
							throw new StopSignal.StopRequested();
						}
						// The hand-off owns the exported snapshot, and closes it.
						ExportedSnapshot exported = handOff.exportSnapshot(connection);
						return new Export(exported, tables(connection));
					});
		}
		catch (RuntimeException ex) {
			if (this.cancelled) {
				throw new StopSignal.StopRequested();
			}
			throw ex;
		}
		finally {
			this.exporting = null;
		}
	}

	/**
	 * Returns the record through which a backfill resumes this snapshot after a crash, or
	 * {@code null} when it cannot: no backfills, a temporary slot, or a table without a
	 * key or partitioned (whose rows a backfill cannot read).
	 */
	private @Nullable SnapshotChunkRecord resumable() {
		SnapshotChunkRecord record = this.chunkRecord;
		if (record == null || this.config.temporary()) {
			return null;
		}
		boolean resumable = this.admin.apply("Checking the tables of slot " + this.config.slotName() + "'s snapshot",
				(connection) -> {
					for (TableId table : tables(connection)) {
						if (!record.resumable(connection, table)) {
							return false;
						}
					}
					return true;
				});
		return resumable ? record : null;
	}

	private SnapshotResult deliver(ExportedSnapshot snapshot, List<TableId> tables, @Nullable ResumableChunks chunks)
			throws InterruptedException {
		Lsn point = snapshot.consistentPoint();
		this.consistentPoint = point;
		// Called as a handler is: what it throws ends this attempt.
		this.config.listener().snapshotStarted(point, tables);
		SnapshotReader snapshotReader = new SnapshotReader(this.settings.readers(), this.decoders);
		this.reader = snapshotReader;
		if (this.cancelled) {
			snapshotReader.cancel();
		}
		Batches batches = new Batches(point, snapshot.createdAt(), chunks);
		SnapshotOptions options = this.settings.options();
		if (this.config.checkpointStore().transactional()) {
			// One chunk at a time, so that each sink transaction holds one chunk's rows.
			options = options.withParallelism(1);
		}
		SnapshotResult result = snapshotReader.read(snapshot, tables, options, batches);
		batches.flush();
		this.dispatcher.awaitLanes();
		while (!this.window.awaitEmpty(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200))) {
			if (this.stop.requested()) {
				logger.info("Consumer of slot {} stops before its snapshot was acknowledged; it is taken again",
						this.config.slotName());
				throw new StopSignal.StopRequested();
			}
		}
		return result;
	}

	/**
	 * Returns the publication's tables, but for postlog's own: the marker table, the
	 * heartbeat table and the watermark table, whose rows no subscription sees.
	 */
	private List<TableId> tables(Connection connection) throws SQLException {
		List<TableId> published = new ReplicationAdmin(connection).publicationTables(this.config.publicationName());
		List<TableId> tables = new ArrayList<>(published);
		tables.remove(this.settings.markerTable());
		if (this.heartbeatTable != null) {
			tables.remove(this.heartbeatTable);
		}
		BackfillSettings backfill = this.config.backfill();
		if (backfill != null) {
			tables.remove(backfill.watermarkTable());
		}
		return tables;
	}

	/**
	 * Cleans up after an attempt that was not handed over: lanes finish what they hold
	 * (so that nothing of it runs beside the next attempt), and the window forgets it.
	 */
	private void abandoned(Lsn point) {
		this.consistentPoint = null;
		this.dispatcher.abandonChunk();
		try {
			this.dispatcher.awaitLanes();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (RuntimeException ex) {
			logger.debug("Lanes of slot {} did not settle after the snapshot ended", this.config.slotName());
		}
		this.window.forgetSnapshot(point);
	}

	/** About the bytes a row holds, which bounds what lanes queue. */
	private static int size(@Nullable Row row) {
		if (row == null) {
			return 0;
		}
		long bytes = 16;
		for (Object value : row.asMap().values()) {
			bytes += (value instanceof String text) ? 2L * text.length()
					: (value instanceof byte[] binary) ? binary.length : 16;
		}
		return (int) Math.min(Integer.MAX_VALUE, bytes);
	}

	/** Deletes the chunk marks of a snapshot handed over: no backfill resumes it. */
	private void forgetMarks(String id) {
		try {
			this.config.checkpointStore().forgetChunks(id);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not delete the chunk marks of slot {}'s snapshot from {}: {}", this.config.slotName(),
					this.config.checkpointStore(), Failures.describe(ex));
		}
	}

	private void notifyCompleted(SnapshotProgress progress) {
		this.config.listener().snapshotCompleted(progress);
	}

	/** A snapshot exported for the hand-off, and the tables it reads. */
	private record Export(ExportedSnapshot snapshot, List<TableId> tables) {

	}

	/**
	 * Gathers the rows the reader hands over into batches for the dispatcher, on the
	 * delivery thread.
	 */
	private final class Batches implements SnapshotSink {

		private final Lsn consistentPoint;

		private final Instant snapshotTime;

		private final @Nullable ResumableChunks chunks;

		private List<Event.ChangeArrived> rows = new ArrayList<>(InitialSnapshot.this.batchSize);

		private AckWindow.@Nullable Entry last;

		private int sequence;

		Batches(Lsn consistentPoint, Instant snapshotTime, @Nullable ResumableChunks chunks) {
			this.consistentPoint = consistentPoint;
			this.snapshotTime = snapshotTime;
			this.chunks = chunks;
		}

		@Override
		public void planned(List<ChunkRange> planned) {
			if (this.chunks != null) {
				this.chunks.planned(planned);
			}
		}

		@Override
		public void chunkDone(ChunkRange chunk) {
			if (this.chunks != null) {
				flush();
				Integer ordinal = this.chunks.ordinal(chunk);
				if (ordinal != null) {
					InitialSnapshot.this.dispatcher.chunkDone(new ChunkMark(this.chunks.id(), ordinal, null, true));
				}
				this.chunks.dispatched(chunk, this.last);
			}
		}

		@Override
		public void accept(Change change) {
			if (InitialSnapshot.this.stop.requested()) {
				throw new StopSignal.StopRequested();
			}
			// Lanes are drained before the stream starts, so a snapshot row's lane
			// need not follow its key: rows take the lanes in turn (hashing each row's
			// id here cost the delivery thread more than the rest of its work).
			int route = this.sequence++;
			this.rows.add(new Event.ChangeArrived(change, route, route,
					InitialSnapshot.this.routing ? size(change.after()) : 0));
			if (this.rows.size() >= InitialSnapshot.this.batchSize) {
				flush();
			}
		}

		void flush() {
			if (this.rows.isEmpty()) {
				return;
			}
			List<Event.ChangeArrived> batch = this.rows;
			this.rows = new ArrayList<>(InitialSnapshot.this.batchSize);
			try {
				this.last = InitialSnapshot.this.dispatcher.snapshot(batch, this.consistentPoint, this.snapshotTime);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new StopSignal.StopRequested();
			}
		}

	}

}
