package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.Change;
import io.postlog.TableId;
import io.postlog.admin.PgErrors;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads tables under an {@link ExportedSnapshot} and hands every row, as a
 * {@link io.postlog.Operation#SNAPSHOT} change, to a {@link SnapshotSink} on the calling
 * thread.
 * <p>
 * <b>How.</b> {@link SnapshotOptions#parallelism()} ordinary connections each open a
 * read-only repeatable-read transaction that imports the snapshot, so all of them see the
 * database as of the slot's consistent point. The first also reads the catalog (columns
 * and type OIDs as of the snapshot) and splits each table into chunks: heap block ranges
 * on PostgreSQL 14 and later (TID range scans), ranges of a single-column integer key
 * before 14, else one pass per table; tables without a key are read like any other. Each
 * chunk is one {@code COPY (SELECT ctid, columns FROM table WHERE range) TO
 * STDOUT}, binary or text, whose values are decoded by the given {@link ValueDecoders},
 * the same that decode pgoutput's values (see {@link SnapshotRows} for the fields of a
 * snapshot change). The exported snapshot is needed only until every connection has
 * imported it, which happens before the first row is read.
 * <p>
 * <b>Memory.</b> One named daemon thread per connection reads and decodes; rows reach the
 * caller through a bounded hand-off of at most {@code 2 × parallelism} batches, each at
 * most 256 rows or about 1 MiB of values, so no more than about
 * {@code (3 × parallelism + 1)} MiB of row data (and whole rows larger than that, one per
 * thread) is in memory whatever the table size. A slow sink stops the readers, and their
 * {@code COPY} waits on the server.
 * <p>
 * <b>Progress and failures.</b> {@link #progress()} gives rows delivered and estimated
 * per table, from any thread; progress is logged at most every
 * {@link SnapshotOptions#progressInterval()}. A reader's failure ends the read with a
 * {@link SnapshotReadException} naming the table and chunk; {@link #cancel()} (from any
 * thread) or an interrupt of the calling thread ends it with a
 * {@link SnapshotCancelledException}; an exception of the sink is rethrown as it is, and
 * so is a reader's {@link OutOfMemoryError} (or another {@link VirtualMachineError} that
 * is no stack overflow), never wrapped into a failure that would be retried. In every
 * case the read returns or throws only after each reader thread ended and each connection
 * was closed (a reader that does not end within 10 seconds of its connection being
 * aborted is logged and left behind as a daemon). Rows delivered before a failure are a
 * partial snapshot.
 * <p>
 * An instance reads once. {@link #read} is called by one thread; {@link #progress()} and
 * {@link #cancel()} are thread-safe.
 */
public final class SnapshotReader {

	private static final Logger logger = LoggerFactory.getLogger(SnapshotReader.class);

	private static final long STOP_GRACE_MILLIS = 2_000;

	private static final long JOIN_MILLIS = 10_000;

	private final SnapshotConnections connections;

	private final ValueDecoders decoders;

	private final AtomicBoolean started = new AtomicBoolean();

	private final AtomicLong rowsRead = new AtomicLong();

	private volatile boolean cancelled;

	private volatile List<TableCounter> counters = List.of();

	/**
	 * Creates a reader.
	 * @param connections opens the reader connections (ordinary, to the snapshot's
	 * database)
	 * @param decoders the value decoders, with the type lookup the stream uses (enums,
	 * domains, arrays of them)
	 */
	public SnapshotReader(SnapshotConnections connections, ValueDecoders decoders) {
		this.connections = Objects.requireNonNull(connections, "connections");
		this.decoders = Objects.requireNonNull(decoders, "decoders");
	}

	/**
	 * Reads every row of the tables and hands each to the sink, on this thread, in no
	 * particular order across tables and chunks (within a chunk, in physical order).
	 * Returns when the last row was delivered.
	 * @param snapshot the snapshot, still open (its replication connection idle)
	 * @param tables the tables, each at most once
	 * @param options how to read
	 * @param sink receives the rows
	 * @return what was delivered
	 * @throws SnapshotReadException if a table cannot be planned or read
	 * @throws SnapshotCancelledException if cancelled or interrupted
	 * @throws IllegalStateException if this reader already read, or the snapshot is no
	 * longer open
	 */
	public SnapshotResult read(ExportedSnapshot snapshot, List<TableId> tables, SnapshotOptions options,
			SnapshotSink sink) {
		Objects.requireNonNull(snapshot, "snapshot");
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(sink, "sink");
		List<TableId> wanted = List.copyOf(tables);
		if (wanted.stream().distinct().count() != wanted.size()) {
			throw new IllegalArgumentException("Each table may be read once: " + wanted);
		}
		if (!this.started.compareAndSet(false, true)) {
			throw new IllegalStateException("A SnapshotReader reads once; create another one");
		}
		if (!snapshot.isOpen()) {
			throw new IllegalStateException(snapshot + " is no longer open: its replication connection was closed or"
					+ " taken, which ended the exported snapshot");
		}
		long start = System.nanoTime();
		List<ReaderSession> sessions = new ArrayList<>();
		List<TablePlan> plans;
		try {
			sessions.add(openSession(snapshot));
			TablePlanner planner = new TablePlanner(sessions.get(0).connection, snapshot.serverVersion(), this.decoders,
					options);
			plans = plan(planner, wanted);
			int chunks = plans.stream().mapToInt((plan) -> plan.chunks.size()).sum();
			int readers = Math.max(1, Math.min(options.parallelism(), chunks));
			while (sessions.size() < readers) {
				sessions.add(openSession(snapshot));
			}
		}
		catch (RuntimeException ex) {
			sessions.forEach(ReaderSession::abort);
			throw ex;
		}
		List<TableCounter> counters = new ArrayList<>();
		plans.forEach((plan) -> counters.add(new TableCounter(plan)));
		this.counters = List.copyOf(counters);
		logger.info("Snapshot {} of slot {} at {}: reading {} table(s) in {} chunk(s) on {} connection(s), {}",
				snapshot.snapshotName(), snapshot.streamSlotName(), snapshot.consistentPoint(), plans.size(),
				plans.stream().mapToInt((plan) -> plan.chunks.size()).sum(), sessions.size(),
				options.binary() ? "binary" : "text");
		Deliveries deliveries = new Deliveries(snapshot, plans, sessions, options);
		long rows = deliveries.run(sink);
		Duration duration = Duration.ofNanos(System.nanoTime() - start);
		logger.info("Snapshot {} of slot {} at {} done: {} rows of {} table(s) in {} ms", snapshot.snapshotName(),
				snapshot.streamSlotName(), snapshot.consistentPoint(), rows, plans.size(), duration.toMillis());
		return new SnapshotResult(snapshot.consistentPoint(), rows, progress(), duration);
	}

	/**
	 * Returns each table's progress, in the order the tables were given; empty before the
	 * read planned them.
	 * @return the progress, a copy
	 */
	public List<TableProgress> progress() {
		List<TableProgress> progress = new ArrayList<>();
		this.counters.forEach((counter) -> progress.add(counter.progress()));
		return List.copyOf(progress);
	}

	/**
	 * Asks the read to stop: {@link #read} stops delivering, ends its readers and throws
	 * {@link SnapshotCancelledException}. Idempotent; may be called before the read.
	 */
	public void cancel() {
		this.cancelled = true;
	}

	/**
	 * Rows decoded by the readers so far, delivered or not: the read-ahead is bounded.
	 */
	long rowsRead() {
		return this.rowsRead.get();
	}

	private ReaderSession openSession(ExportedSnapshot snapshot) {
		Connection connection;
		try {
			connection = this.connections.connect();
		}
		catch (SQLException ex) {
			throw new SnapshotReadException(
					"Could not open a snapshot reader connection (SQLState " + PgErrors.sqlState(ex) + ")", null, null,
					ex);
		}
		try {
			return ReaderSession.open(connection, snapshot.snapshotName(), snapshot.serverVersion());
		}
		catch (SQLException ex) {
			throw new SnapshotReadException("Could not import snapshot " + snapshot.snapshotName() + " of slot "
					+ snapshot.slotName() + " (SQLState " + PgErrors.sqlState(ex) + "); an exported snapshot lives only"
					+ " until its replication connection runs another command or closes", null, null, ex);
		}
	}

	private static List<TablePlan> plan(TablePlanner planner, List<TableId> tables) {
		List<TablePlan> plans = new ArrayList<>();
		for (TableId table : tables) {
			try {
				plans.add(planner.plan(table));
			}
			catch (SQLException ex) {
				throw new SnapshotReadException(
						"Could not plan the snapshot of table " + table + " (SQLState " + PgErrors.sqlState(ex) + ")",
						table, null, ex);
			}
		}
		return plans;
	}

	/**
	 * Runs the reader threads and delivers what they hand over, on the calling thread.
	 */
	private final class Deliveries {

		private final ExportedSnapshot snapshot;

		private final List<TablePlan> plans;

		private final List<ReaderSession> sessions;

		private final SnapshotOptions options;

		private final HandOff handOff;

		private final List<Thread> threads = new ArrayList<>();

		private long lastLog = System.nanoTime();

		Deliveries(ExportedSnapshot snapshot, List<TablePlan> plans, List<ReaderSession> sessions,
				SnapshotOptions options) {
			this.snapshot = snapshot;
			this.plans = plans;
			this.sessions = sessions;
			this.options = options;
			this.handOff = new HandOff(2 * sessions.size());
		}

		long run(SnapshotSink sink) {
			List<ChunkReader.Work.Task> tasks = new ArrayList<>();
			for (int table = 0; table < this.plans.size(); table++) {
				for (Chunk chunk : this.plans.get(table).chunks) {
					tasks.add(new ChunkReader.Work.Task(table, this.plans.get(table), chunk));
				}
			}
			ChunkReader.Work work = new ChunkReader.Work(tasks);
			List<ChunkRange> ranges = new ArrayList<>(tasks.size());
			tasks.forEach((task) -> ranges.add(task.chunk().range(task.plan().table)));
			sink.planned(List.copyOf(ranges));
			SnapshotRows rows = new SnapshotRows(this.snapshot, this.options.binary(), this.plans);
			for (int i = 0; i < this.sessions.size(); i++) {
				String name = "postlog-snapshot-" + this.snapshot.streamSlotName() + "-" + (i + 1);
				Thread thread = new Thread(new ChunkReader(name, this.sessions.get(i), work, this.handOff, rows,
						this.options.binary(), SnapshotReader.this.rowsRead), name);
				thread.setDaemon(true);
				thread.setUncaughtExceptionHandler((failed, ex) -> logger.error("Snapshot reader {} died", name, ex));
				this.threads.add(thread);
			}
			this.threads.forEach(Thread::start);
			boolean complete = false;
			try {
				long delivered = deliver(sink);
				complete = true;
				return delivered;
			}
			finally {
				stop(complete);
			}
		}

		private long deliver(SnapshotSink sink) {
			long delivered = 0;
			int running = this.threads.size();
			while (running > 0) {
				if (SnapshotReader.this.cancelled) {
					throw new SnapshotCancelledException("The snapshot read of slot " + this.snapshot.streamSlotName()
							+ " was cancelled after " + delivered + " rows");
				}
				HandOff.Item item;
				try {
					item = this.handOff.poll();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new SnapshotCancelledException("The thread delivering the snapshot of slot "
							+ this.snapshot.streamSlotName() + " was interrupted after " + delivered + " rows");
				}
				if (item instanceof HandOff.Rows rows) {
					TableCounter counter = SnapshotReader.this.counters.get(rows.table());
					for (Change change : rows.changes()) {
						sink.accept(change);
						counter.delivered++;
						delivered++;
					}
					if (rows.chunkEnd()) {
						counter.chunksDone++;
						TablePlan plan = this.plans.get(rows.table());
						sink.chunkDone(plan.chunks.get(rows.chunk()).range(plan.table));
					}
				}
				else if (item instanceof HandOff.Finished) {
					running--;
				}
				else if (item instanceof HandOff.Failed failed) {
					throw failure(failed);
				}
				logProgress(false);
			}
			return delivered;
		}

		private SnapshotReadException failure(HandOff.Failed failed) {
			Throwable cause = failed.cause();
			if (cause instanceof VirtualMachineError error && !(error instanceof StackOverflowError)) {
				// Out of memory: nothing in this JVM can be trusted to retry; it fails
				// the
				// consumer at once, as it would on the delivery thread.
				throw error;
			}
			if (cause instanceof SnapshotReadException read) {
				return read;
			}
			String what = (failed.table() != null) ? "table " + failed.table() + ", " + failed.chunk()
					: "its connection";
			String reason = (cause instanceof SQLException sql) ? "SQLState " + PgErrors.sqlState(sql)
					: (cause instanceof CopyFormatException) ? cause.getMessage() : cause.getClass().getName();
			return new SnapshotReadException("Snapshot reader " + failed.reader() + " of slot "
					+ this.snapshot.streamSlotName() + " failed reading " + what + " (" + reason + ")", failed.table(),
					failed.chunk(), cause);
		}

		private void logProgress(boolean force) {
			long now = System.nanoTime();
			if (!force && now - this.lastLog < this.options.progressInterval().toNanos()) {
				return;
			}
			this.lastLog = now;
			StringBuilder line = new StringBuilder();
			int done = 0;
			for (TableCounter counter : SnapshotReader.this.counters) {
				TableProgress progress = counter.progress();
				if (progress.done()) {
					done++;
				}
				else if (progress.rowsDone() > 0 || progress.chunksDone() > 0) {
					line.append(", ").append(progress.table()).append(' ').append(progress.rowsDone());
					line.append((progress.rowsEstimated() >= 0) ? "/" + progress.rowsEstimated() : "").append(" rows");
				}
			}
			logger.info("Snapshot of slot {}: {} of {} table(s) done{}", this.snapshot.streamSlotName(), done,
					SnapshotReader.this.counters.size(), line);
		}

		/**
		 * Ends the readers: they stop at their next hand-off; a reader waiting on the
		 * server is unblocked by aborting its connection. Joins every thread.
		 */
		private void stop(boolean complete) {
			if (!complete) {
				this.handOff.stop();
			}
			// An interrupted caller still waits for its readers; the flag is restored.
			boolean interrupted = Thread.interrupted();
			long graceEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_GRACE_MILLIS);
			for (int i = 0; i < this.threads.size(); i++) {
				Thread thread = this.threads.get(i);
				join(thread, Math.max(1, TimeUnit.NANOSECONDS.toMillis(graceEnd - System.nanoTime())));
				if (thread.isAlive()) {
					this.sessions.get(i).abort();
					join(thread, JOIN_MILLIS);
				}
				if (thread.isAlive()) {
					logger.warn("Snapshot reader {} did not end within {} ms of its connection being aborted",
							thread.getName(), STOP_GRACE_MILLIS + JOIN_MILLIS);
				}
			}
			this.sessions.forEach(ReaderSession::close);
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
			if (complete) {
				logProgress(true);
			}
		}

		private void join(Thread thread, long millis) {
			try {
				thread.join(millis);
			}
			catch (InterruptedException ex) {
				// Interrupted again while stopping: stop waiting for this one.
				Thread.currentThread().interrupt();
			}
		}

	}

	/**
	 * One table's counters: chunks and rows delivered, written by the delivering thread
	 * only.
	 */
	private static final class TableCounter {

		private final TablePlan plan;

		volatile long delivered;

		volatile int chunksDone;

		TableCounter(TablePlan plan) {
			this.plan = plan;
		}

		TableProgress progress() {
			int chunksDone = this.chunksDone;
			return new TableProgress(this.plan.table, this.delivered, this.plan.estimatedRows, chunksDone,
					this.plan.chunks.size(), chunksDone == this.plan.chunks.size());
		}

	}

}
