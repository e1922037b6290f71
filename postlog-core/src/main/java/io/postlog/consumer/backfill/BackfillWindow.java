package io.postlog.consumer.backfill;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.consumer.checkpoint.ChunkMark;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.Event;
import io.postlog.snapshot.BackfillReader;
import io.postlog.snapshot.BackfillRow;
import io.postlog.snapshot.BackfillTable;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream side of backfills (the DBLog watermark algorithm), on the delivery thread,
 * in front of the consumer's dispatcher ({@link Downstream}). For each chunk announced it
 * records the key (and transaction) of every streamed change of its table from the moment
 * of the announcement; the low watermark marks where its window opens, the high watermark
 * where it closes. Several chunks may be open at once (the runner reads the next chunk
 * while the last one is delivered): their key ranges do not overlap, and each has its own
 * window. At the commit of the high watermark's transaction, in stream order, the chunk's
 * rows go to the subscriptions as {@code SNAPSHOT} changes through
 * {@link Downstream#snapshot}, but for those whose key a streamed change won over: one
 * committed after the low watermark, or one the read did not see (the read's snapshot
 * decides that, which covers a transaction whose commit is in the WAL before the low
 * watermark but was not yet visible when the chunk was read). A chunk row's lane is the
 * one a streamed change of its key takes, so each key keeps its order on lanes.
 * <p>
 * Slices: from the high watermark's commit on, the chunk's rows go a slice
 * ({@value #BATCH} rows) at a time: one slice after each streamed transaction, and the
 * rest whenever no streamed event waits, so that streamed changes do not queue behind a
 * whole chunk. Chunks whose high watermarks came go in that order, one after the other. A
 * streamed change of a key whose row is still to go supersedes that row (it is dropped,
 * as in the window): no row of a key follows a newer change of it.
 * <p>
 * Bursts: the slices go in bursts of about 200 µs ({@link #BURST_NANOS}; at least one
 * slice), with a wait of {@value #PAUSE_MICROS} µs for a streamed event between two (the
 * kernel may stretch it by some tens of microseconds), which ends at once when one comes.
 * Delivered in one go, a chunk kept the delivery thread busy for milliseconds; on a
 * machine whose cores the backfill keeps busy, the scheduler then took the core from it
 * in the middle, and streamed events queued until it had one again. A thread that waits
 * between short bursts is one the scheduler runs soon after it wakes. The slower the
 * listener, the longer a burst and the smaller the waits' share.
 * <p>
 * With a transactional checkpoint store a chunk goes whole at its high watermark's
 * commit, and its rows commit in one sink transaction with the chunk's mark
 * ({@link Downstream#chunkDone}); a failure before that rolls them back, and the chunk
 * goes again from its first row.
 * <p>
 * TOAST: while a table is being backfilled, an update that does not resend a TOASTed
 * value is merged before it is delivered ({@link ToastMerge}).
 * <p>
 * Visibility: PostgreSQL makes a commit visible a moment after it flushed the commit's
 * WAL record, and the stream can deliver the transaction in between. A transaction
 * delivered before a chunk was announced is not recorded for it, so the chunk's read must
 * see it: the window keeps the ids of the last {@value #DELIVERED} transactions
 * delivered, a chunk takes those delivered before its announcement, and the read takes a
 * new snapshot until it sees them all ({@link BackfillReader}).
 * <p>
 * Watermarks and changes of postlog's backfill tables never reach a subscription. Not
 * thread-safe but for {@link #open}, {@link #close}, {@link #activate} and
 * {@link #deactivate}.
 * <p>
 * Internal: public only so the consumer can install it; not part of postlog's API.
 */
public final class BackfillWindow {

	private static final Logger logger = LoggerFactory.getLogger(BackfillWindow.class);

	private static final int BATCH = 256;

	/**
	 * The longest the delivery thread delivers chunk rows at a stretch while no streamed
	 * event waits; it then waits {@link #PAUSE_MICROS} for one before it goes on.
	 */
	static final long BURST_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

	/**
	 * How long the delivery thread waits for a streamed event between two bursts of chunk
	 * rows; an event that arrives in it is taken at once.
	 */
	public static final long PAUSE_MICROS = 50;

	/** How many of the last delivered transactions' ids the window keeps. */
	static final int DELIVERED = 65_536;

	/** The consumer hosting the window. */
	private final BackfillHost config;

	private final Downstream dispatcher;

	private final @Nullable Watermarks watermarks;

	private final @Nullable TableId progressTable;

	private final int batchSize;

	/**
	 * Whether chunks go whole into sink transactions with their marks (a transactional
	 * checkpoint store), not in slices between streamed transactions.
	 */
	private final boolean effectOnce;

	private final ToastMerge toast;

	private final @Nullable Delivered delivered;

	/** The chunks announced and not yet closed, oldest first; copied on write. */
	private volatile OpenChunk[] open = new OpenChunk[0];

	/** The chunks whose rows go in slices, in the order of their high watermarks. */
	private final ArrayDeque<PendingChunk> pending = new ArrayDeque<>();

	/**
	 * Creates the window of a consumer with backfills.
	 * @param config the consumer hosting it
	 * @param maxTransactionChanges the most changes the consumer delivers as one batch
	 * @param dispatcher where events and chunk rows go on to
	 * @param settings how the consumer backfills
	 * @param serverVersion the server's version number, which decides the watermarks
	 */
	public BackfillWindow(BackfillHost config, int maxTransactionChanges, Downstream dispatcher,
			@Nullable BackfillSettings settings, int serverVersion) {
		this.config = config;
		this.dispatcher = dispatcher;
		this.watermarks = (settings != null)
				? new Watermarks(serverVersion, settings.watermarkTable(), config.slotName()) : null;
		this.progressTable = (settings != null) ? settings.progressTable() : null;
		this.toast = new ToastMerge((settings != null) ? settings.readers() : null, config.slotName());
		this.batchSize = Math.min(BATCH, maxTransactionChanges);
		this.effectOnce = config.effectOnce();
		this.delivered = (settings != null) ? new Delivered(DELIVERED) : null;
	}

	/**
	 * Marks a table as being backfilled: its updates are merged from then on.
	 * Thread-safe.
	 */
	void activate(BackfillTable table, BackfillReader reader) {
		this.toast.activate(table, reader);
	}

	/** Ends {@link #activate}. Thread-safe. */
	void deactivate(TableId table) {
		this.toast.deactivate(table);
	}

	/**
	 * Announces a chunk: its table's changes are recorded from now on. Thread-safe.
	 * @return the chunk, which the runner gives its rows and waits on
	 */
	OpenChunk open(String token, BackfillTable table) {
		OpenChunk chunk = new OpenChunk(token, table);
		synchronized (this) {
			OpenChunk[] chunks = Arrays.copyOf(this.open, this.open.length + 1);
			chunks[chunks.length - 1] = chunk;
			this.open = chunks;
		}
		// After the announcement: a transaction whose Begin this copy misses has all of
		// its changes recorded for the chunk.
		chunk.deliveredBefore = (this.delivered != null) ? this.delivered.copy() : new long[0];
		return chunk;
	}

	/**
	 * Returns the shapes the chunks whose high watermark an event is were read in: the
	 * reader thread asks, as it assembles the event, so that a schema change they reveal
	 * precedes the chunks' rows. Thread-safe.
	 * @param event an event of an open transaction
	 * @return the shapes, empty for any other event
	 */
	public List<BackfillTable.ReadShape> readShapes(Event event) {
		OpenChunk[] chunks = this.open;
		if (chunks.length == 0) {
			return List.of();
		}
		String token = null;
		if (event instanceof Event.MessageArrived arrived && arrived.message().transactional()) {
			token = Watermarks.token(arrived.message());
		}
		else if (event instanceof Event.ChangeArrived arrived && this.watermarks != null
				&& this.watermarks.isWatermark(arrived.change())) {
			token = this.watermarks.token(arrived.change());
		}
		if (token == null) {
			return List.of();
		}
		List<BackfillTable.ReadShape> shapes = new ArrayList<>(1);
		for (OpenChunk chunk : chunks) {
			BackfillTable.ReadShape shape = chunk.table.readShape();
			if (shape != null && token.equals(chunk.high())) {
				shapes.add(shape);
			}
		}
		return shapes;
	}

	/** Forgets a chunk announced. Thread-safe. */
	synchronized void close(OpenChunk chunk) {
		List<OpenChunk> chunks = new ArrayList<>(Arrays.asList(this.open));
		if (chunks.remove(chunk)) {
			this.open = chunks.toArray(new OpenChunk[0]);
		}
	}

	/**
	 * Hands one streamed event on, recording it for the chunks open and delivering the
	 * rows of a chunk whose high watermark's transaction it commits. Watermarks and
	 * changes of the progress table go no further.
	 * @param event the event
	 * @throws InterruptedException if interrupted while waiting for room
	 */
	public void deliver(Event event) throws InterruptedException {
		OpenChunk[] chunks = this.open;
		if (event instanceof Event.Begin begin) {
			if (this.delivered != null) {
				this.delivered.add(begin.xid());
			}
			this.dispatcher.deliver(event);
			return;
		}
		if (event instanceof Event.ChangeArrived arrived) {
			Change change = arrived.change();
			if (this.watermarks != null && this.watermarks.isWatermark(change)) {
				watermark(chunks, this.watermarks.token(change));
				return;
			}
			if (change.table().equals(this.progressTable)) {
				return;
			}
			for (OpenChunk chunk : chunks) {
				if (change.table().equals(chunk.table.table())) {
					chunk.record(change);
				}
			}
			for (PendingChunk slices : this.pending) {
				if (change.table().equals(slices.chunk.table.table())) {
					slices.supersede(change);
				}
			}
			Event.ChangeArrived delivered = this.toast.merged(arrived);
			if (delivered != null) {
				this.dispatcher.deliver(delivered);
			}
			return;
		}
		if (event instanceof Event.MessageArrived arrived) {
			String token = Watermarks.token(arrived.message());
			if (token == null) {
				this.dispatcher.deliver(event);
			}
			else if (arrived.message().transactional()) {
				watermark(chunks, token);
			}
			return;
		}
		this.dispatcher.deliver(event);
		if (!(event instanceof Event.Commit commit)) {
			return;
		}
		boolean closed = false;
		for (OpenChunk chunk : chunks) {
			if (chunk.highSeen) {
				deliverChunk(chunk, commit);
				closed = true;
			}
		}
		if (!closed && !this.pending.isEmpty()) {
			// At least a slice per streamed transaction, however busy the stream.
			deliverSlice();
		}
	}

	private static void watermark(OpenChunk[] chunks, @Nullable String token) {
		if (token == null) {
			return;
		}
		for (OpenChunk chunk : chunks) {
			if (token.equals(chunk.low())) {
				chunk.lowSeen = true;
			}
			else if (token.equals(chunk.high())) {
				if (!chunk.lowSeen) {
					logger.debug("High watermark of backfill chunk {} without its low one", chunk.token);
				}
				chunk.highSeen = true;
			}
		}
	}

	private void deliverChunk(OpenChunk chunk, Event.Commit commit) throws InterruptedException {
		chunk.highSeen = false;
		synchronized (chunk) {
			if (chunk.abandoned) {
				return;
			}
			chunk.delivering = true;
		}
		// The runner gives the chunk its rows before it writes the high watermark.
		while (!chunk.read.await(50, TimeUnit.MILLISECONDS)) {
			if (chunk.abandoned) {
				return;
			}
		}
		// The rows of chunks whose high watermarks came before go first. A reconnect can
		// send a high watermark again: that chunk's rows then go again from the start.
		this.pending.removeIf((slices) -> slices.chunk == chunk);
		String idPrefix = this.config.slotName() + "/" + commit.commitLsn() + "/backfill/";
		this.pending.add(new PendingChunk(chunk, commit.commitLsn(), commit.commitTime(), idPrefix));
		deliverSlice();
	}

	/**
	 * Whether chunk rows wait to be delivered: {@link #deliverPending} delivers them
	 * between streamed transactions.
	 */
	public boolean hasPending() {
		return !this.pending.isEmpty();
	}

	/**
	 * Delivers the rows of the chunks past their high watermarks, a slice at a time,
	 * until they are all delivered, the stream has something waiting, or
	 * {@link #BURST_NANOS} have passed. Outside a transaction only. The caller then waits
	 * up to {@link #PAUSE_MICROS} for a streamed event before it calls again.
	 * @param streamWaiting whether the stream has an event waiting
	 */
	public void deliverPending(BooleanSupplier streamWaiting) throws InterruptedException {
		long start = System.nanoTime();
		while (!this.pending.isEmpty() && !this.dispatcher.inTransaction() && !streamWaiting.getAsBoolean()) {
			deliverSlice();
			if (System.nanoTime() - start >= BURST_NANOS) {
				return;
			}
		}
	}

	private void deliverSlice() throws InterruptedException {
		PendingChunk slices = this.pending.peek();
		if (slices == null) {
			return;
		}
		if (!this.effectOnce) {
			deliverSlice(slices);
			return;
		}
		try {
			if (slices.restarted && committed(slices)) {
				return;
			}
			do {
				deliverSlice(slices);
			}
			while (this.pending.peek() == slices);
		}
		catch (RuntimeException | Error | InterruptedException ex) {
			// The dispatcher rolls the chunk's sink transaction back as the session ends.
			slices.restart();
			throw ex;
		}
	}

	/**
	 * Whether the sink holds the mark of a chunk whose commit failed: a commit can
	 * succeed although its answer was lost. The chunk is then delivered.
	 */
	private boolean committed(PendingChunk slices) {
		ChunkMark mark = slices.chunk.mark;
		if (mark == null || !mark.equals(this.config.chunkMarks(mark.backfillId()).get(mark.ordinal()))) {
			return false;
		}
		this.pending.poll();
		slices.chunk.delivered(List.of(), slices.chunk.rows.rows().size() - slices.dropped, slices.dropped);
		return true;
	}

	private void deliverSlice(PendingChunk slices) throws InterruptedException {
		List<BackfillRow> rows = slices.chunk.rows.rows();
		List<Event.ChangeArrived> batch = new ArrayList<>(this.batchSize);
		while (slices.next < rows.size() && batch.size() < this.batchSize) {
			int position = slices.next++;
			if (slices.superseded[position]) {
				continue;
			}
			BackfillRow row = rows.get(position);
			Change change = new Change(Operation.SNAPSHOT, slices.chunk.table.table(), null, row.row(), 0L,
					slices.point, slices.time, slices.index, slices.idPrefix + slices.index);
			slices.index++;
			batch.add(new Event.ChangeArrived(change, row.route(), row.route(), row.bytes()));
		}
		if (!batch.isEmpty()) {
			AckWindow.Entry entry = this.dispatcher.snapshot(batch, slices.point, slices.time);
			slices.entries.add(entry);
			slices.chunk.sliceDispatched(entry, batch.size());
		}
		if (slices.next >= rows.size()) {
			ChunkMark mark = slices.chunk.mark;
			if (this.effectOnce && mark != null) {
				this.dispatcher.chunkDone(mark);
			}
			this.pending.poll();
			slices.chunk.delivered(slices.entries, slices.index, slices.dropped);
		}
	}

	/** Closes the connection merges read on; on the delivery thread as it ends. */
	public void closeConnection() {
		this.toast.closeConnection();
	}

	/**
	 * The ids of the last transactions delivered, for chunk reads to see. Thread-safe.
	 */
	static final class Delivered {

		private final long[] xids;

		private long count;

		Delivered(int capacity) {
			this.xids = new long[capacity];
		}

		synchronized void add(long xid) {
			this.xids[(int) (this.count++ % this.xids.length)] = xid;
		}

		synchronized long[] copy() {
			int size = (int) Math.min(this.count, this.xids.length);
			long[] copy = new long[size];
			System.arraycopy(this.xids, 0, copy, 0, size);
			return copy;
		}

	}

}
