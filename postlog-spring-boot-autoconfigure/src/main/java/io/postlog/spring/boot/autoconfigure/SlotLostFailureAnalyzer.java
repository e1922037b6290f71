package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.SlotLostException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link SlotLostException} under {@code postlog.slot.on-lost=fail}.
 */
class SlotLostFailureAnalyzer extends AbstractFailureAnalyzer<SlotLostException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, SlotLostException cause) {
		String slot = cause.slotName();
		String why = (cause.reason() == SlotLostException.Reason.INVALIDATED)
				? "The server invalidated it, usually because it retained more WAL than max_slot_wal_keep_size "
						+ "allows (or, on PostgreSQL 18, because it was idle longer than idle_replication_slot_timeout)."
				: "It existed before and is gone: it was dropped, or the server failed over to a standby that "
						+ "had no synchronised copy of it.";
		return new FailureAnalysis(
				"postlog's replication slot is lost and can no longer stream: " + cause.getMessage() + ". " + why
						+ " The changes after its last confirmed position cannot be delivered any more.",
				"Decide how to recover the changes that were missed, then either set postlog.slot.on-lost=recreate "
						+ "(postlog drops the lost slot, creates a new one and goes on from the current position), "
						+ "or recreate it yourself: SELECT pg_drop_replication_slot('" + slot + "'); and restart. "
						+ "Rebuild what the listeners maintain from the tables, because the changes in between are "
						+ "gone. To keep it from happening again, alert on postlog.slot.retained and set "
						+ "postlog.health.max-retained-ratio below 1 (see docs/operations.md).",
				cause);
	}

}
