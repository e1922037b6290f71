package io.postlog.spring;

import java.util.Set;

import io.postlog.Lsn;
import io.postlog.TableId;
import org.jspecify.annotations.Nullable;

/**
 * What {@link PostlogFence} knows of one write: the tables it wrote (when the server
 * told) and whether its transaction committed. A token from {@link PostlogFence#token()}
 * is complete once its transaction committed; one from {@link PostlogFence#afterCommit()}
 * at once. Thread-safe: it may be awaited from another thread than the writer's.
 */
public final class WriteToken {

	enum Outcome {

		PENDING, COMMITTED, ROLLED_BACK

	}

	private final @Nullable Set<TableId> tables;

	private volatile Outcome outcome;

	private final @Nullable Lsn lsn;

	WriteToken(@Nullable Set<TableId> tables, Outcome outcome, @Nullable Lsn lsn) {
		this.tables = (tables != null) ? Set.copyOf(tables) : null;
		this.outcome = outcome;
		this.lsn = lsn;
	}

	/**
	 * Returns the tables the transaction wrote: those it held a write lock on (with each
	 * partition's ancestors), empty when it wrote nothing.
	 * @return the tables, or {@code null} when unknown (a token taken after the commit,
	 * or a transaction that wrote without a table lock): then every group that reads a
	 * table is waited for
	 */
	public @Nullable Set<TableId> tables() {
		return this.tables;
	}

	/**
	 * Returns whether the transaction committed.
	 * @return {@code false} while it runs and after a rollback
	 */
	public boolean committed() {
		return this.outcome == Outcome.COMMITTED;
	}

	/**
	 * Returns whether the transaction rolled back: nothing of it is delivered, so
	 * awaiting it returns at once.
	 * @return whether it rolled back
	 */
	public boolean rolledBack() {
		return this.outcome == Outcome.ROLLED_BACK;
	}

	Outcome outcome() {
		return this.outcome;
	}

	void completed(Outcome outcome) {
		this.outcome = outcome;
	}

	/**
	 * The position read after the commit, or {@code null} when it is read when awaited
	 * (which is after the commit too).
	 */
	@Nullable Lsn lsn() {
		return this.lsn;
	}

	@Override
	public String toString() {
		return "WriteToken[" + this.outcome + ", tables " + ((this.tables != null) ? this.tables : "unknown")
				+ ((this.lsn != null) ? ", lsn " + this.lsn : "") + "]";
	}

}
