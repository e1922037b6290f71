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
 * resumes at the next chunk. A backfill is read in parts: one per table, or, for one that
 * resumes an interrupted initial snapshot ({@link #resumesSnapshot()}), one per chunk the
 * snapshot had not finished. Thread-safe: progress may be read and {@link #cancel()}
 * called from any thread.
 */
public final class Backfill {

	private final String id;

	private final List<TableId> tables;

	private final List<TableId> parts;

	private final long[] rowsDone;

	private final long[] rowsEstimated;

	private final boolean[] tablesDone;

	private volatile State state = State.PENDING;

	private volatile boolean cancelRequested;

	private volatile @Nullable Throwable failure;

	/**
	 * Creates a backfill.
	 * @param id its id
	 * @param parts each part's table, in the order they are read
	 */
	Backfill(String id, List<TableId> parts) {
		this.id = Objects.requireNonNull(id, "id");
		this.parts = List.copyOf(parts);
		this.tables = List.copyOf(new java.util.LinkedHashSet<>(parts));
		this.rowsDone = new long[parts.size()];
		this.rowsEstimated = new long[parts.size()];
		this.tablesDone = new boolean[parts.size()];
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
	 * Returns whether this backfill reads what an interrupted initial snapshot did not
	 * deliver.
	 * @return whether it resumes a snapshot
	 */
	public boolean resumesSnapshot() {
		return this.id.startsWith(BackfillStore.SNAPSHOT_PREFIX);
	}

	/** Each part's table, in the order they are read. */
	List<TableId> parts() {
		return this.parts;
	}

	/** Whether every part of a table is done. */
	synchronized boolean tableDone(TableId table) {
		for (int i = 0; i < this.parts.size(); i++) {
			if (this.parts.get(i).equals(table) && !this.tablesDone[i]) {
				return false;
			}
		}
		return true;
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
	 * changes that every listener finished (counted as they finish, slice by slice of up
	 * to 256 rows), or left out because a streamed change of their key won over them
	 * (counted when their chunk settles). A chunk read again after a reconnect takes back
	 * what it had counted.
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
	 * Returns each table's progress: rows done and estimated summed over its parts, the
	 * parts done as {@code chunksDone} and its parts as {@code chunksTotal} (one per
	 * table, or one per unfinished snapshot chunk when it {@link #resumesSnapshot()
	 * resumes a snapshot}), and whether every part is done.
	 * @return a copy of the progress
	 */
	public synchronized List<TableProgress> progress() {
		List<TableProgress> progress = new ArrayList<>(this.tables.size());
		for (TableId table : this.tables) {
			long rows = 0;
			long estimated = 0;
			int parts = 0;
			int done = 0;
			for (int i = 0; i < this.parts.size(); i++) {
				if (this.parts.get(i).equals(table)) {
					parts++;
					rows += this.rowsDone[i];
					estimated = (estimated < 0 || this.rowsEstimated[i] < 0) ? -1 : estimated + this.rowsEstimated[i];
					done += this.tablesDone[i] ? 1 : 0;
				}
			}
			progress.add(new TableProgress(table, rows, estimated, done, parts, done == parts));
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
