package io.postlog.snapshot;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.Change;
import org.jspecify.annotations.Nullable;
import org.postgresql.copy.CopyOut;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The body of one reader thread: takes chunks from the shared work list until none is
 * left, copies each on its own session, decodes the rows and hands them over in batches
 * of at most {@link #BATCH_ROWS} rows or about {@link #BATCH_BYTES} bytes of values.
 * Whatever ends it, it closes its session and tells the owner through the hand-off:
 * {@link HandOff.Finished} after committing, or {@link HandOff.Failed} with the table and
 * chunk.
 */
final class ChunkReader implements Runnable {

	static final int BATCH_ROWS = 256;

	static final long BATCH_BYTES = 1 << 20;

	private static final Logger logger = LoggerFactory.getLogger(ChunkReader.class);

	private final String name;

	private final ReaderSession session;

	private final Work work;

	private final HandOff handOff;

	private final SnapshotRows rows;

	private final boolean binary;

	private final AtomicLong rowsRead;

	ChunkReader(String name, ReaderSession session, Work work, HandOff handOff, SnapshotRows rows, boolean binary,
			AtomicLong rowsRead) {
		this.name = name;
		this.session = session;
		this.work = work;
		this.handOff = handOff;
		this.rows = rows;
		this.binary = binary;
		this.rowsRead = rowsRead;
	}

	@Override
	public void run() {
		Work.Task task = null;
		try {
			while (!this.handOff.stopped() && (task = this.work.next()) != null) {
				if (!read(task)) {
					break;
				}
			}
			if (this.handOff.stopped()) {
				this.session.abort();
				return;
			}
			this.session.commitAndClose();
			this.handOff.putFinal(new HandOff.Finished(this.name));
		}
		catch (InterruptedException ex) {
			// Only the owner's stop interrupts a reader.
			this.session.abort();
		}
		catch (Throwable ex) {
			this.session.abort();
			fail(task, ex);
		}
	}

	/**
	 * Copies one chunk.
	 * @return {@code false} if the hand-off stopped meanwhile
	 */
	private boolean read(Work.Task task) throws SQLException, InterruptedException {
		TablePlan plan = task.plan();
		String chunk = plan.describe(task.chunk());
		CopyOut copy = this.session.copy.copyOut(plan.copySql(task.chunk(), this.binary));
		CopyInput input = new CopyInput(copy::readFromCopy);
		CopyRows copyRows = CopyRows.of(input, this.binary);
		CopyFields fields = new CopyFields(plan.systemFields() + plan.columnNames.size());
		List<Change> batch = new ArrayList<>(BATCH_ROWS);
		long batchBytes = 0;
		int index = 0;
		while (copyRows.next(fields)) {
			batch.add(this.rows.change(plan, fields, index, chunk));
			index = (index < Integer.MAX_VALUE) ? index + 1 : index;
			batchBytes += fields.size();
			if (batch.size() >= BATCH_ROWS || batchBytes >= BATCH_BYTES) {
				this.rowsRead.addAndGet(batch.size());
				if (!this.handOff.put(new HandOff.Rows(task.table(), task.chunk().index(), batch, false))) {
					return false;
				}
				batch = new ArrayList<>(BATCH_ROWS);
				batchBytes = 0;
			}
		}
		this.rowsRead.addAndGet(batch.size());
		return this.handOff.put(new HandOff.Rows(task.table(), task.chunk().index(), batch, true));
	}

	private void fail(Work.@Nullable Task task, Throwable ex) {
		HandOff.Failed failed = (task != null)
				? new HandOff.Failed(this.name, task.plan().table, task.plan().describe(task.chunk()), ex)
				: new HandOff.Failed(this.name, null, null, ex);
		if (this.handOff.stopped()) {
			logger.debug("Snapshot reader {} failed after the snapshot read was stopped", this.name, ex);
			return;
		}
		try {
			this.handOff.putFinal(failed);
		}
		catch (InterruptedException interrupted) {
			logger.warn("Snapshot reader {} failed while the read was being stopped ({})", this.name,
					ex.getClass().getName());
		}
	}

	/**
	 * The chunks still to read, over every table, taken by the readers in order.
	 * Thread-safe.
	 */
	static final class Work {

		private final List<Task> tasks;

		private int next;

		Work(List<Task> tasks) {
			this.tasks = List.copyOf(tasks);
		}

		synchronized @Nullable Task next() {
			return (this.next < this.tasks.size()) ? this.tasks.get(this.next++) : null;
		}

		int size() {
			return this.tasks.size();
		}

		/** One chunk of one table, the table given by its position in the read. */
		record Task(int table, TablePlan plan, Chunk chunk) {

		}

	}

}
