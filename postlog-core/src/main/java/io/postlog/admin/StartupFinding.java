package io.postlog.admin;

import java.util.Objects;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * One result of {@link StartupChecks}: a failure, which must stop start-up and carries
 * the typed exception to throw, or a warning to log. Both say what to do about it.
 * Immutable.
 *
 * @param check which check found it
 * @param severity whether start-up must stop
 * @param message what was found (names and settings only, never row values)
 * @param fix what to do about it
 * @param failure the exception to throw for a failure; {@code null} for a warning
 */
public record StartupFinding(Check check, Severity severity, String message, String fix,
		@Nullable PostlogException failure) {

	/**
	 * Creates a finding.
	 * @param check the check
	 * @param severity the severity
	 * @param message what was found
	 * @param fix what to do
	 * @param failure the exception of a failure
	 */
	public StartupFinding {
		Objects.requireNonNull(check, "check");
		Objects.requireNonNull(severity, "severity");
		if ((severity == Severity.FAILURE) != (failure != null)) {
			throw new IllegalArgumentException("A failure needs its exception and a warning has none");
		}
	}

	static StartupFinding failure(Check check, PostlogException failure, String fix) {
		return new StartupFinding(check, Severity.FAILURE, failure.getMessage(), fix, failure);
	}

	static StartupFinding warning(Check check, String message, String fix) {
		return new StartupFinding(check, Severity.WARNING, message, fix, null);
	}

	/**
	 * Whether a finding stops start-up.
	 */
	public enum Severity {

		/** Start-up must stop: streaming would fail or do harm. */
		FAILURE,

		/** Start-up goes on; the finding is logged with its fix. */
		WARNING

	}

	/**
	 * The checks {@link StartupChecks} runs.
	 */
	public enum Check {

		/** {@code wal_level} is {@code logical}. */
		WAL_LEVEL,

		/** A replication slot is free when postlog must create one. */
		REPLICATION_SLOTS,

		/** A WAL sender is free for postlog's replication connection. */
		WAL_SENDERS,

		/** {@code max_slot_wal_keep_size} bounds the WAL a slot may retain. */
		MAX_SLOT_WAL_KEEP_SIZE,

		/** {@code idle_replication_slot_timeout} (18+) cannot invalidate the slot. */
		IDLE_REPLICATION_SLOT_TIMEOUT,

		/** The slot holds no change from before its publication existed. */
		PUBLICATION_AFTER_SLOT,

		/** Tables published for updates and deletes have a usable replica identity. */
		REPLICA_IDENTITY,

		/** A failover slot is possible and the server is set up for it. */
		FAILOVER,

		/** The heartbeat table (before PostgreSQL 14) is published. */
		HEARTBEAT_TABLE

	}

}
