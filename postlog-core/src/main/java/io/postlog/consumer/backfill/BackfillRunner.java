package io.postlog.consumer.backfill;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.PgErrors;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.snapshot.BackfillReader;
import io.postlog.snapshot.BackfillRefusedException;
import io.postlog.snapshot.BackfillTable;
import io.postlog.snapshot.ChunkRange;
import io.postlog.snapshot.SnapshotReadException;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The body of the backfill thread: runs backfills one after the other, table by table,
 * chunk by chunk. Per chunk: announce it to the {@link BackfillWindow}, write the low
 * watermark, read the chunk, hand its rows over, write the high watermark; once the
 * window delivered it and every subscription finished it, record the progress. The next
 * chunk is read while the stream carries the last one. A lost connection or a chunk that
 * did not come through (a reconnect of the stream, the slot held by another process)
 * redoes the chunk, and those read after it, with new watermarks; what cannot succeed by
 * retrying fails the backfill, never the consumer. Thread-safe: {@link #submit} and
 * {@link #stop} may be called from any thread.
 * <p>
 * Internal: public only so the consumer can run it; not part of postlog's API.
 */
public final class BackfillRunner implements Runnable {

	private static final Logger logger = LoggerFactory.getLogger(BackfillRunner.class);

	private final BackfillHost config;

	private final BackfillSettings settings;

	private final BackfillWindow window;

	private final Watermarks watermarks;

	private final BackfillStore store;

	private final BackfillReader reader;

	/**
	 * Whether an initial snapshot resumes its own backfill ({@link #resumeSnapshot}),
	 * which {@link #resume()} then leaves alone.
	 */
	private final boolean snapshotResumes;

	private final LinkedBlockingQueue<Queued> queue = new LinkedBlockingQueue<>();

	private final Map<String, BackfillJob> backfills = new ConcurrentHashMap<>();

	private volatile boolean stopped;

	private final BackfillConnection connection;

	private final TableBackfill tables;

	/**
	 * Creates the runner of a consumer's backfills: chunks are read in binary when
	 * {@code binary}; see {@link #snapshotResumes}.
	 */
	public BackfillRunner(BackfillHost config, BackfillSettings settings, BackfillWindow window, AckWindow ackWindow,
			ValueDecoders decoders, int serverVersion, boolean binary, boolean snapshotResumes) {
		this.config = config;
		this.settings = settings;
		this.window = window;
		this.watermarks = new Watermarks(serverVersion, settings.watermarkTable(), config.slotName());
		this.store = new BackfillStore(settings.progressTable(), config.slotName());
		this.reader = new BackfillReader(decoders, serverVersion);
		this.snapshotResumes = snapshotResumes;
		this.connection = new BackfillConnection(config, settings, () -> this.stopped);
		this.tables = new TableBackfill(config, settings, window, this.watermarks, this.store, this.reader,
				this.connection, binary, new ChunkSettlement(config, ackWindow, () -> this.stopped), ackWindow,
				() -> this.stopped, logger);
	}

	/**
	 * Submits a backfill asked for from outside (the consumer's {@code backfill}):
	 * refused, before any statement runs, while the consumer holds
	 * {@link BackfillSettings#maxQueued} unfinished backfills (one whose cancel was asked
	 * for no longer counts). Requests are submitted one at a time, so two cannot both
	 * take the last place.
	 * @return the backfill, or {@code null} if the queue is full (the consumer refuses)
	 * @see #submit
	 */
	public synchronized @Nullable BackfillJob request(Collection<TableId> tables) {
		long unfinished = this.backfills.values().stream().filter(BackfillJob::unfinished).count();
		if (unfinished >= this.settings.maxQueued()) {
			return null;
		}
		return submit(tables);
	}

	/**
	 * Checks the tables (each must exist, be published and have a key) and records a new
	 * backfill of them, which runs once those before it are done.
	 * @return the backfill
	 * @throws io.postlog.snapshot.KeylessTableException if a table has no key
	 * @throws BackfillRefusedException if a table cannot be backfilled otherwise
	 * @throws SnapshotReadException if a table does not exist or is not published, or the
	 * progress cannot be recorded
	 */
	public BackfillJob submit(Collection<TableId> tables) {
		List<TableId> distinct = new ArrayList<>(new LinkedHashSet<>(tables));
		if (distinct.isEmpty()) {
			throw new IllegalArgumentException("A backfill needs at least one table");
		}
		BackfillJob backfill = new BackfillJob(UUID.randomUUID().toString(), distinct);
		try (Connection planning = this.settings.readers().connect()) {
			planning.setAutoCommit(true);
			List<BackfillTable> planned = new ArrayList<>();
			for (int i = 0; i < distinct.size(); i++) {
				BackfillTable table = this.reader.plan(planning, distinct.get(i), this.config.publicationName());
				backfill.progressed(i, 0, table.estimatedRows(), false);
				planned.add(table);
			}
			this.store.create(planning);
			this.watermarks.prepare(planning, this.config.publicationName());
			this.store.insert(planning, backfill.id(), backfill.tables());
			// From here on no update of these tables may reach a subscription unmerged.
			planned.forEach((table) -> this.window.activate(table, this.reader));
		}
		catch (SQLException ex) {
			throw new SnapshotReadException(
					"Could not record a backfill of " + distinct + " for slot " + this.config.slotName(), null, null,
					ex);
		}
		enqueue(backfill, null);
		logger.info("Backfill {} of {} for slot {} recorded", backfill.id(), distinct, this.config.slotName());
		return backfill;
	}

	/** Returns the backfills this runner ran or runs, including those it resumed. */
	public List<BackfillJob> backfills() {
		return List.copyOf(this.backfills.values());
	}

	/** Asks the runner to end: its thread ends after the chunk it waits on. */
	public void stop() {
		this.stopped = true;
	}

	private void enqueue(BackfillJob backfill, BackfillStore.@Nullable Stored stored) {
		this.backfills.put(backfill.id(), backfill);
		this.queue.add(new Queued(backfill, stored));
	}

	@Override
	public void run() {
		try {
			resume();
			while (!this.stopped) {
				Queued next = this.queue.poll(100, TimeUnit.MILLISECONDS);
				if (next != null) {
					run(next);
				}
			}
		}
		catch (InterruptedException ex) {
			// Only the consumer's stop interrupts this thread: it ends here as asked.
			logger.debug("Backfill runner of slot {} interrupted by the consumer's stop", this.config.slotName());
		}
		finally {
			this.connection.close();
		}
	}

	/** Queues the backfills a previous run of this slot left unfinished. */
	private void resume() throws InterruptedException {
		for (int attempt = 1; !this.stopped; attempt++) {
			try (Connection loading = this.settings.readers().connect()) {
				loading.setAutoCommit(true);
				this.store.create(loading);
				load(loading, false);
				return;
			}
			catch (SQLException | PostlogException ex) {
				// A PostlogException: the sink's chunk marks could not be read.
				Duration backOff = this.config.retryBackOff(attempt);
				logger.warn("Could not read the backfills of slot {} (retrying in {} ms): {}", this.config.slotName(),
						backOff.toMillis(), (ex instanceof SQLException sql)
								? ex.getClass().getName() + " " + PgErrors.sqlState(sql) : this.config.describe(ex));
				Thread.sleep(backOff.toMillis());
			}
		}
	}

	/**
	 * Queues the backfill that resumes an interrupted initial snapshot: called on the
	 * delivery thread before the stream starts, so that the window merges the updates of
	 * its tables from the first streamed transaction on.
	 * @param connection an ordinary connection in auto-commit
	 * @throws SQLException if the progress cannot be read
	 */
	public void resumeSnapshot(Connection connection) throws SQLException {
		this.store.create(connection);
		load(connection, true);
	}

	private synchronized void load(Connection loading, boolean snapshots) throws SQLException {
		for (BackfillStore.Stored stored : this.store.unfinished(loading)) {
			boolean snapshot = stored.id.startsWith(BackfillStore.SNAPSHOT_PREFIX);
			if (this.backfills.containsKey(stored.id) || (snapshot && this.snapshotResumes != snapshots)
					|| (!snapshot && snapshots)) {
				// Submitted by this consumer as it started (its new tables), or left to
				// the initial snapshot's decision.
				continue;
			}
			BackfillJob backfill = new BackfillJob(stored.id, stored.tables);
			stored.take(this.config.chunkMarks(stored.id));
			Set<TableId> activated = new HashSet<>();
			for (int i = 0; i < stored.tables.size(); i++) {
				backfill.progressed(i, stored.rows.get(i), -1, stored.done.get(i));
				if (!stored.done.get(i) && activated.add(stored.tables.get(i))) {
					activate(loading, stored.tables.get(i));
				}
			}
			logger.info("Backfill {} of {} for slot {} resumes", backfill.id(), backfill.tables(),
					this.config.slotName());
			enqueue(backfill, stored);
		}
	}

	/**
	 * Merges a resumed table's updates at once, before the stream delivers any; a table
	 * that cannot be planned now fails its backfill when it is read.
	 */
	private void activate(Connection connection, TableId table) {
		try {
			this.window.activate(this.reader.plan(connection, table, this.config.publicationName()), this.reader);
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("Backfill table {} of slot {} not planned on resuming", table, this.config.slotName(), ex);
		}
	}

	private void run(Queued queued) throws InterruptedException {
		BackfillJob backfill = queued.backfill;
		backfill.moveTo(BackfillJob.State.RUNNING, null);
		this.config.started(backfill);
		try {
			for (int i = 0; i < backfill.parts().size(); i++) {
				if (backfill.tableDone(i)) {
					continue;
				}
				List<String> after = (queued.stored != null) ? queued.stored.after.get(i) : null;
				ChunkRange range = (queued.stored != null) ? queued.stored.ranges.get(i) : null;
				if (!this.tables.run(backfill, i, after, range)) {
					if (backfill.cancelRequested() && !this.stopped && forget(backfill)) {
						backfill.moveTo(BackfillJob.State.CANCELLED, null);
						logger.info("Backfill {} of {} for slot {} cancelled after {} rows", backfill.id(),
								backfill.tables(), this.config.slotName(), backfill.rowsDone());
					}
					return;
				}
			}
			this.config.forgetChunkMarks(backfill.id());
			backfill.moveTo(BackfillJob.State.COMPLETED, null);
			logger.info("Backfill {} of {} for slot {} completed: {} rows", backfill.id(), backfill.tables(),
					this.config.slotName(), backfill.rowsDone());
			this.config.completed(backfill);
		}
		catch (RuntimeException ex) {
			// A refusal, a value that does not decode, a table gone: retrying cannot
			// help.
			failed(backfill, ex);
		}
	}

	private void failed(BackfillJob backfill, RuntimeException cause) throws InterruptedException {
		logger.error("Backfill {} of {} for slot {} failed: {}", backfill.id(), backfill.tables(),
				this.config.slotName(), this.config.describe(cause));
		forget(backfill);
		backfill.moveTo(BackfillJob.State.FAILED, cause);
	}

	/** Deletes a backfill's progress row; {@code false} if the consumer stopped first. */
	private boolean forget(BackfillJob backfill) throws InterruptedException {
		boolean forgotten = this.connection.run(null, (c) -> {
			this.store.delete(c, backfill.id());
			return true;
		}) != null;
		if (forgotten) {
			this.config.forgetChunkMarks(backfill.id());
		}
		return forgotten;
	}

	private record Queued(BackfillJob backfill, BackfillStore.@Nullable Stored stored) {

	}

}
