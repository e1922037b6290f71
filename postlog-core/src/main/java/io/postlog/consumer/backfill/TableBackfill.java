package io.postlog.consumer.backfill;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

import io.postlog.TableId;
import io.postlog.consumer.checkpoint.ChunkMark;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.snapshot.BackfillChunk;
import io.postlog.snapshot.BackfillReader;
import io.postlog.snapshot.BackfillTable;
import io.postlog.snapshot.ChunkRange;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * The backfill of one table, for the {@link BackfillRunner}: chunk by chunk, each
 * announced to the {@link BackfillWindow}, read between its watermarks and handed over;
 * once the window delivered it and every subscription finished it
 * ({@link ChunkSettlement}), the table's progress is recorded. The next chunk is read
 * while the stream carries the last one. Used on the backfill thread only.
 */
final class TableBackfill {

	/** Chunks open at once: the next one is read while the last one is delivered. */
	private static final int CHUNKS_IN_FLIGHT = 2;

	private static final Duration PROGRESS_LOG_INTERVAL = Duration.ofSeconds(5);

	private final BackfillHost config;

	private final BackfillSettings settings;

	private final BackfillWindow window;

	private final Watermarks watermarks;

	private final BackfillStore store;

	private final BackfillReader reader;

	private final BackfillConnection connection;

	private final boolean binary;

	private final ChunkSettlement settlement;

	private final AckWindow ackWindow;

	private final BooleanSupplier stopped;

	/** The runner's: the lines of a table's backfill keep the runner's category. */
	private final Logger logger;

	private long lastLog;

	TableBackfill(BackfillHost config, BackfillSettings settings, BackfillWindow window, Watermarks watermarks,
			BackfillStore store, BackfillReader reader, BackfillConnection connection, boolean binary,
			ChunkSettlement settlement, AckWindow ackWindow, BooleanSupplier stopped, Logger logger) {
		this.config = config;
		this.settings = settings;
		this.window = window;
		this.watermarks = watermarks;
		this.store = store;
		this.reader = reader;
		this.connection = connection;
		this.binary = binary;
		this.settlement = settlement;
		this.ackWindow = ackWindow;
		this.stopped = stopped;
		this.logger = logger;
	}

	/**
	 * Backfills one table to its end. The next chunk is read while the last one is
	 * delivered (at most {@value #CHUNKS_IN_FLIGHT} chunks are open at once), and a
	 * chunk's progress is recorded once it and every chunk before it settled. A chunk
	 * that did not come through is read again with the chunks after it.
	 * @return whether it got there (else the backfill was cancelled, or the consumer
	 * stops)
	 */
	boolean run(BackfillJob backfill, int ordinal, @Nullable List<String> resumeAfter, @Nullable ChunkRange range)
			throws InterruptedException {
		TableId tableId = backfill.parts().get(ordinal);
		BackfillTable table = this.connection.run(backfill,
				(c) -> this.reader.plan(c, tableId, this.config.publicationName()));
		if (table == null) {
			return false;
		}
		this.window.activate(table, this.reader);
		ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
		try {
			long rows = backfill.tableRows(ordinal);
			long estimated = (range != null) ? -1 : table.estimatedRows();
			backfill.progressed(ordinal, rows, estimated, false);
			if (range == null) {
				this.logger.info("Backfill {} reads {} for slot {} ({} rows estimated)", backfill.id(), tableId,
						this.config.slotName(), table.estimatedRows());
			}
			List<String> settledAfter = resumeAfter;
			List<String> readAfter = resumeAfter;
			boolean readToEnd = false;
			int chunkNumber = 0;
			int attempt = 1;
			while (true) {
				if (!readToEnd && inFlight.size() < CHUNKS_IN_FLIGHT) {
					// Each chunk reads the table's shape as it is now: a DDL between
					// chunks
					// is announced at the next chunk's high watermark.
					BackfillTable current = replan(backfill, table);
					if (current == null) {
						return false;
					}
					table = current;
					InFlight read = read(backfill, ordinal, table, range, readAfter, chunkNumber++);
					if (read == null) {
						return false;
					}
					if (read.rows == 0) {
						readToEnd = true;
					}
					else {
						inFlight.add(read);
						readAfter = read.lastKey;
						readToEnd = read.rows < this.settings.chunkSize();
					}
					continue;
				}
				InFlight oldest = inFlight.peek();
				if (oldest != null) {
					long settled = rows;
					Runnable progress = () -> backfill.progressed(ordinal, settled + settledRows(inFlight), estimated,
							false);
					if (!this.settlement.awaitSettled(backfill, oldest.chunk, progress)) {
						if (backfill.cancelRequested() || this.stopped.getAsBoolean() || this.settlement.ended()) {
							return false;
						}
						attempt++;
						this.logger.info(
								"Backfill {}: a chunk of {} did not come through the stream of slot {} in time; "
										+ "reading it again (attempt {})",
								backfill.id(), table.table(), this.config.slotName(), attempt);
						abandon(inFlight);
						readAfter = settledAfter;
						readToEnd = false;
						continue;
					}
					inFlight.poll();
					this.window.close(oldest.chunk);
					rows += oldest.chunk.deliveredRows() + oldest.chunk.droppedRows();
					settledAfter = oldest.lastKey;
					attempt = 1;
				}
				boolean last = readToEnd && inFlight.isEmpty();
				if (!save(backfill, ordinal, settledAfter, rows, last)) {
					return false;
				}
				backfill.progressed(ordinal, rows, estimated, last);
				logProgress(backfill, last);
				if (last) {
					return true;
				}
			}
		}
		finally {
			abandon(inFlight);
			if (backfill.tableDone(tableId)) {
				this.window.deactivate(tableId);
			}
		}
	}

	private @Nullable BackfillTable replan(BackfillJob backfill, BackfillTable table) throws InterruptedException {
		BackfillTable current = this.connection.run(backfill,
				(c) -> this.reader.replan(c, table, this.config.publicationName()));
		if (current != null && current != table) {
			this.window.activate(current, this.reader);
		}
		return current;
	}

	private boolean save(BackfillJob backfill, int ordinal, @Nullable List<String> position, long rows, boolean last)
			throws InterruptedException {
		Boolean saved = this.connection.run(backfill, (c) -> {
			this.store.save(c, backfill.id(), ordinal, position, rows, last);
			return true;
		});
		return saved != null;
	}

	/**
	 * Drops the chunks in flight. One whose delivery began is waited for, so that no row
	 * of a backfill is delivered after it ended.
	 */
	private void abandon(ArrayDeque<InFlight> inFlight) throws InterruptedException {
		for (InFlight read : inFlight) {
			if (!read.chunk.abandon()) {
				this.settlement.awaitDelivering(read.chunk);
			}
			this.window.close(read.chunk);
		}
		inFlight.clear();
	}

	/**
	 * Reads one chunk between its watermarks; the window delivers it at the high one.
	 * @return the chunk in flight (with no rows, and closed, if the table has none left),
	 * or {@code null} if cancelled or stopping
	 */
	private @Nullable InFlight read(BackfillJob backfill, int ordinal, BackfillTable table, @Nullable ChunkRange range,
			@Nullable List<String> after, int chunkNumber) throws InterruptedException {
		if (!this.settlement.awaitStreaming(backfill)) {
			return null;
		}
		String token = backfill.id() + "/" + chunkNumber + "/"
				+ HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
		OpenChunk chunk = this.window.open(token, table);
		boolean inFlight = false;
		try {
			BackfillChunk rows = this.connection.run(backfill, (c) -> {
				this.watermarks.write(c, chunk.low());
				// The window has the rows before the high watermark is written, which
				// goes in the round trip of the read's commit.
				return this.reader.read(c, table, range, after, this.settings.chunkSize(), this.binary,
						chunk.deliveredBefore, (read) -> {
							if (read.rows().isEmpty()) {
								return null;
							}
							chunk.mark = new ChunkMark(backfill.id(), ordinal, read.lastKey(), false);
							chunk.rows(read);
							return this.watermarks.sql(chunk.high());
						});
			});
			if (rows == null) {
				return null;
			}
			if (rows.rows().isEmpty()) {
				return new InFlight(chunk, 0, after);
			}
			inFlight = true;
			return new InFlight(chunk, rows.rows().size(), rows.lastKey());
		}
		finally {
			if (!inFlight) {
				chunk.abandon();
				this.window.close(chunk);
			}
		}
	}

	/** The rows of the chunks in flight that every subscription finished. */
	private long settledRows(ArrayDeque<InFlight> inFlight) {
		long rows = 0;
		for (InFlight read : inFlight) {
			rows += read.chunk.settledRows(this.ackWindow);
		}
		return rows;
	}

	private void logProgress(BackfillJob backfill, boolean force) {
		long now = System.nanoTime();
		if (force || now - this.lastLog > PROGRESS_LOG_INTERVAL.toNanos()) {
			this.lastLog = now;
			this.logger.info("Backfill {} for slot {}: {} of {} rows", backfill.id(), this.config.slotName(),
					backfill.rowsDone(), backfill.rowsEstimated());
		}
	}

	/** A chunk read and not yet settled. */
	private record InFlight(OpenChunk chunk, int rows, @Nullable List<String> lastKey) {

	}

}
