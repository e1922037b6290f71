package io.postlog.consumer;

import java.util.List;

import io.postlog.TableId;
import io.postlog.consumer.backfill.BackfillJob;
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

	private final BackfillJob job;

	Backfill(BackfillJob job) {
		this.job = job;
	}

	/**
	 * Returns the backfill's id, unique per slot and kept across restarts.
	 * @return the id
	 */
	public String id() {
		return this.job.id();
	}

	/**
	 * Returns the tables, in the order they are read.
	 * @return the tables
	 */
	public List<TableId> tables() {
		return this.job.tables();
	}

	/**
	 * Returns whether this backfill reads what an interrupted initial snapshot did not
	 * deliver.
	 * @return whether it resumes a snapshot
	 */
	public boolean resumesSnapshot() {
		return this.job.resumesSnapshot();
	}

	/**
	 * Returns the state.
	 * @return the state
	 */
	public State state() {
		return switch (this.job.state()) {
			case PENDING -> State.PENDING;
			case RUNNING -> State.RUNNING;
			case COMPLETED -> State.COMPLETED;
			case CANCELLED -> State.CANCELLED;
			case FAILED -> State.FAILED;
		};
	}

	/**
	 * Returns the rows handled so far over all tables: delivered as {@code SNAPSHOT}
	 * changes that every listener finished (counted as they finish, slice by slice of up
	 * to 256 rows), or left out because a streamed change of their key won over them
	 * (counted when their chunk settles). A chunk read again after a reconnect takes back
	 * what it had counted.
	 * @return the rows
	 */
	public long rowsDone() {
		return this.job.rowsDone();
	}

	/**
	 * Returns the rows the catalog expects over all tables.
	 * @return the rows, or {@code -1} while a table's estimate is unknown
	 */
	public long rowsEstimated() {
		return this.job.rowsEstimated();
	}

	/**
	 * Returns each table's progress: rows done and estimated summed over its parts, the
	 * parts done as {@code chunksDone} and its parts as {@code chunksTotal} (one per
	 * table, or one per unfinished snapshot chunk when it {@link #resumesSnapshot()
	 * resumes a snapshot}), and whether every part is done.
	 * @return a copy of the progress
	 */
	public List<TableProgress> progress() {
		return this.job.progress();
	}

	/**
	 * Returns why the backfill failed.
	 * @return the failure, or {@code null} unless {@link State#FAILED}
	 */
	public @Nullable Throwable failure() {
		return this.job.failure();
	}

	/**
	 * Asks the backfill to end: the chunk being read is dropped, nothing more of it is
	 * delivered, and its recorded progress is removed, so it does not resume after a
	 * restart. Rows already delivered stay delivered. Idempotent.
	 */
	public void cancel() {
		this.job.cancel();
	}

	@Override
	public String toString() {
		return this.job.toString();
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
