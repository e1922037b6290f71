package io.postlog.consumer.delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import io.postlog.Lsn;
import io.postlog.consumer.checkpoint.ChunkMark;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink transaction of a transactional checkpoint store ({@link CheckpointSink}): it
 * spans source transactions (and the rows of a snapshot or backfill chunk, which commit
 * only with the chunk's mark), and its commit moves the checkpoint. The window entries it
 * covers are held until it commits, and forgotten if it rolls back, when every
 * subscription's progress goes back to the checkpoint, so that all of it is delivered
 * again. Not thread-safe: the delivery thread only, through the {@link Dispatcher}.
 */
final class SinkTransaction {

	private static final Logger logger = LoggerFactory.getLogger(SinkTransaction.class);

	private final CheckpointSink store;

	private final FailureLedger<?> ledger;

	private final AckWindow window;

	private final List<Target> targets;

	private final DispatchHost host;

	/** The window entry of the source transaction open, forgotten with a rollback. */
	private final Supplier<AckWindow.@Nullable Entry> current;

	private Lsn checkpoint = Lsn.INVALID;

	private boolean open;

	private long openedNanos;

	private Lsn lastCommit = Lsn.INVALID;

	private final List<AckWindow.Entry> entries = new ArrayList<>();

	/**
	 * Whether it holds rows of a snapshot or backfill chunk, which commit only with the
	 * chunk's mark ({@link #chunkDone}).
	 */
	private boolean chunkOpen;

	SinkTransaction(CheckpointSink store, FailureLedger<?> ledger, AckWindow window, List<Target> targets,
			DispatchHost host, Supplier<AckWindow.@Nullable Entry> current) {
		this.store = store;
		this.ledger = ledger;
		this.window = window;
		this.targets = targets;
		this.host = host;
		this.current = current;
	}

	/** Reads the checkpoint, as a session starts. */
	void sessionStarted() {
		this.checkpoint = this.store.load();
		this.lastCommit = this.checkpoint;
	}

	/**
	 * Returns whether a source transaction is at or below the checkpoint: its sink
	 * transaction committed before.
	 */
	boolean covers(Lsn commitLsn) {
		return !commitLsn.isAfter(this.checkpoint);
	}

	boolean isOpen() {
		return this.open;
	}

	boolean inChunk() {
		return this.chunkOpen;
	}

	void open() {
		if (!this.open) {
			this.store.begin();
			this.open = true;
			this.openedNanos = System.nanoTime();
		}
	}

	/** Opens it (if none is) for the rows of a chunk, which commit with its mark. */
	void openChunk() {
		open();
		this.chunkOpen = true;
	}

	/** Holds a window entry until the sink transaction commits. */
	void hold(AckWindow.Entry entry) {
		this.window.hold(entry);
		this.entries.add(entry);
	}

	/** Holds a source transaction delivered into it. */
	void delivered(AckWindow.Entry entry, Lsn commitLsn) {
		hold(entry);
		this.lastCommit = commitLsn;
	}

	/**
	 * Returns whether it is due to commit after a source transaction: open outside a
	 * chunk, with a batch's worth of transactions or open a batch's delay.
	 */
	boolean due(int batch, long delayNanos) {
		return this.open && !this.chunkOpen
				&& (this.entries.size() >= batch || System.nanoTime() - this.openedNanos >= delayNanos);
	}

	/**
	 * Writes a chunk's mark into the sink transaction that holds its rows (opened for the
	 * mark alone if no row went) and commits it, so that the rows and the mark commit
	 * together.
	 * @param mark the chunk's mark
	 */
	void chunkDone(ChunkMark mark) {
		open();
		try {
			this.store.recordChunk(mark);
		}
		catch (RuntimeException ex) {
			rollback();
			throw ex;
		}
		this.chunkOpen = false;
		commit();
	}

	void commit() {
		try {
			this.store.commit(this.lastCommit);
		}
		catch (RuntimeException ex) {
			// Not known to be committed: never committed a second time, but forgotten and
			// delivered again after the checkpoint the next session reads.
			rollback();
			throw ex;
		}
		this.open = false;
		this.checkpoint = this.lastCommit;
		this.ledger.committed(this.checkpoint);
		List<AckWindow.Entry> committed = List.copyOf(this.entries);
		this.entries.clear();
		for (AckWindow.Entry done : committed) {
			this.window.release(done);
		}
	}

	/**
	 * Rolls it back: its source transactions are forgotten by the window and every
	 * subscription's progress goes back to the checkpoint, so that all of it is delivered
	 * again.
	 */
	void rollback() {
		this.open = false;
		this.chunkOpen = false;
		try {
			this.store.rollback();
		}
		catch (RuntimeException ex) {
			// The sink's connection is likely gone with its transaction, which is then
			// rolled back by the server: nothing of it is committed either way.
			logger.debug("Rolling back the sink transaction of slot {} failed: {}", this.host.slotName(),
					this.host.describe(ex));
		}
		List<AckWindow.Entry> forgotten = new ArrayList<>(this.entries);
		AckWindow.Entry entry = this.current.get();
		if (entry != null) {
			forgotten.add(entry);
		}
		this.entries.clear();
		this.window.forget(forgotten);
		for (Target target : this.targets) {
			target.resetTo(this.checkpoint);
		}
	}

	/**
	 * Ends it with the session: rolled back when {@code rollBack}, else committed (a
	 * failed commit is rolled back and logged: what it held is delivered again after the
	 * checkpoint the next session reads).
	 */
	void sessionEnded(boolean rollBack) {
		if (!this.open) {
			return;
		}
		if (rollBack || this.chunkOpen) {
			rollback();
			return;
		}
		try {
			commit();
		}
		catch (RuntimeException ex) {
			// Rolled back by commit: delivered again after the checkpoint the next
			// session
			// reads.
			logger.warn(
					"Committing the sink transaction of slot {} at the end of its session failed; it "
							+ "is delivered again from checkpoint {}: {}",
					this.host.slotName(), this.checkpoint, this.host.describe(ex));
		}
	}

}
