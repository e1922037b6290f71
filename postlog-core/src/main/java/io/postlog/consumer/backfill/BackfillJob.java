package io.postlog.consumer.backfill;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

import io.postlog.TableId;
import io.postlog.snapshot.TableProgress;
import org.jspecify.annotations.Nullable;

/**
 * One backfill as the room runs it: its parts (one per table, or one per chunk an
 * interrupted initial snapshot had not finished), each part's progress, its state, and
 * whether its cancel was asked for. The consumer shows it to users as
 * {@link io.postlog.consumer.Backfill}, which reads it. Thread-safe: progress may be read
 * and {@link #cancel()} called from any thread.
 * <p>
 * Internal: public only so the consumer can show it; not part of postlog's API, and it
 * may change in any release.
 */
public final class BackfillJob {

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
	BackfillJob(String id, List<TableId> parts) {
		this.id = Objects.requireNonNull(id, "id");
		this.parts = List.copyOf(parts);
		this.tables = List.copyOf(new LinkedHashSet<>(parts));
		this.rowsDone = new long[parts.size()];
		this.rowsEstimated = new long[parts.size()];
		this.tablesDone = new boolean[parts.size()];
		Arrays.fill(this.rowsEstimated, -1);
	}

	/**
	 * Returns the id, unique per slot and kept across restarts.
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
	 * Returns the rows handled so far over all parts (see
	 * {@link io.postlog.consumer.Backfill#rowsDone()}).
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
	 * Returns the rows the catalog expects over all parts.
	 * @return the rows, or {@code -1} while a part's estimate is unknown
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
	 * Returns each table's progress, summed over its parts (see
	 * {@link io.postlog.consumer.Backfill#progress()}).
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
	 * Asks the backfill to end (see {@link io.postlog.consumer.Backfill#cancel()}).
	 * Idempotent.
	 */
	public void cancel() {
		this.cancelRequested = true;
	}

	boolean cancelRequested() {
		return this.cancelRequested;
	}

	/**
	 * Whether it counts against the queue: pending or running, its cancel not asked for.
	 */
	boolean unfinished() {
		State current = this.state;
		return !this.cancelRequested && (current == State.PENDING || current == State.RUNNING);
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
	 * Where a backfill is: the constants of {@link io.postlog.consumer.Backfill.State},
	 * which says what each means (the API's enum lives in the consumer, which this room
	 * does not depend on).
	 */
	public enum State {

		PENDING, RUNNING, COMPLETED, CANCELLED, FAILED

	}

}
