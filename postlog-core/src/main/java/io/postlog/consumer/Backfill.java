package io.postlog.consumer;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.postlog.TableId;
import io.postlog.snapshot.TableProgress;
import org.jspecify.annotations.Nullable;

/**
 * A backfill of some tables while the stream runs ({@link ReplicationConsumer#backfill}):
 * their rows reach the consumer's subscriptions as {@link io.postlog.Operation#SNAPSHOT}
 * changes, chunk by chunk in key order, between the stream's transactions. Its progress
 * is recorded after every chunk the subscriptions finished, so that after a restart it
 * resumes at the next chunk. Thread-safe: progress may be read and {@link #cancel()}
 * called from any thread.
 */
public final class Backfill {

	private final String id;

	private final List<TableId> tables;

	private final long[] rowsDone;

	private final long[] rowsEstimated;

	private final boolean[] tablesDone;

	private volatile State state = State.PENDING;

	private volatile boolean cancelRequested;

	private volatile @Nullable Throwable failure;

	Backfill(String id, List<TableId> tables) {
		this.id = Objects.requireNonNull(id, "id");
		this.tables = List.copyOf(tables);
		this.rowsDone = new long[tables.size()];
		this.rowsEstimated = new long[tables.size()];
		this.tablesDone = new boolean[tables.size()];
		java.util.Arrays.fill(this.rowsEstimated, -1);
	}

	/**
	 * Returns the backfill's id, unique per slot and kept across restarts.
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

	/**
	 * Returns the tables, in the order they are read.
	 * @return the tables
	 */
	public List<TableId> tables() {
		return this.tables;
	}

	/**
	 * Returns the state.
	 * @return the state
	 */
	public State state() {
		return this.state;
	}

	/**
	 * Returns the rows handled so far over all tables: delivered as {@code SNAPSHOT}
	 * changes, or left out because a streamed change of their key won over them.
	 * @return the rows
	 */
	public synchronized long rowsDone() {
		long rows = 0;
		for (long done : this.rowsDone) {
			rows += done;
		}
		return rows;
	}

	/**
	 * Returns the rows the catalog expects over all tables.
	 * @return the rows, or {@code -1} while a table's estimate is unknown
	 */
	public synchronized long rowsEstimated() {
		long rows = 0;
		for (long estimated : this.rowsEstimated) {
			if (estimated < 0) {
				return -1;
			}
			rows += estimated;
		}
		return rows;
	}

	/**
	 * Returns each table's progress; chunks are counted as they are read, their total is
	 * not known ({@code -1}).
	 * @return a copy of the progress
	 */
	public synchronized List<TableProgress> progress() {
		List<TableProgress> progress = new ArrayList<>(this.tables.size());
		for (int i = 0; i < this.tables.size(); i++) {
			progress.add(new TableProgress(this.tables.get(i), this.rowsDone[i], this.rowsEstimated[i], -1, -1,
					this.tablesDone[i]));
		}
		return progress;
	}

	/**
	 * Returns why the backfill failed.
	 * @return the failure, or {@code null} unless {@link State#FAILED}
	 */
	public @Nullable Throwable failure() {
		return this.failure;
	}

	/**
	 * Asks the backfill to end: the chunk being read is dropped, nothing more of it is
	 * delivered, and its recorded progress is removed, so it does not resume after a
	 * restart. Rows already delivered stay delivered. Idempotent.
	 */
	public void cancel() {
		this.cancelRequested = true;
	}

	boolean cancelRequested() {
		return this.cancelRequested;
	}

	synchronized void progressed(int table, long rows, long estimated, boolean done) {
		this.rowsDone[table] = rows;
		this.rowsEstimated[table] = estimated;
		this.tablesDone[table] = done;
	}

	synchronized boolean tableDone(int table) {
		return this.tablesDone[table];
	}

	synchronized long tableRows(int table) {
		return this.rowsDone[table];
	}

	void moveTo(State state, @Nullable Throwable cause) {
		this.failure = cause;
		this.state = state;
	}

	@Override
	public String toString() {
		return "Backfill[" + this.id + ", " + this.tables + ", " + this.state + "]";
	}

	/**
	 * Where a backfill is.
	 */
	public enum State {

		/** Waiting for the stream to run, or for another backfill to finish. */
		PENDING,

		/** Reading and delivering chunks. */
		RUNNING,

		/** Every table was read and every chunk delivered. */
		COMPLETED,

		/** Cancelled: nothing more is delivered and it does not resume. */
		CANCELLED,

		/**
		 * Failed for a reason retrying cannot change (a value that does not decode, a
		 * table dropped); see {@link #failure()}. It does not resume.
		 */
		FAILED

	}

}
