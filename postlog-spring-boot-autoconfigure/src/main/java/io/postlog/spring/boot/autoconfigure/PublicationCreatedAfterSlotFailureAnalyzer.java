package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.PublicationCreatedAfterSlotException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link PublicationCreatedAfterSlotException}: the slot holds changes from
 * before its publication existed, which PostgreSQL up to 17 cannot decode.
 */
class PublicationCreatedAfterSlotFailureAnalyzer extends AbstractFailureAnalyzer<PublicationCreatedAfterSlotException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, PublicationCreatedAfterSlotException cause) {
		return new FailureAnalysis(
				"postlog's slot cannot stream: " + cause.getMessage() + ". PostgreSQL decodes each change with the "
						+ "publication as it was then, and up to version 17 a change from before the publication "
						+ "existed fails on every attempt.",
				"Skip the changes from before the publication: SELECT pg_replication_slot_advance('" + cause.slotName()
						+ "', pg_current_wal_lsn()); (PostgreSQL 11+), or drop the slot "
						+ "(SELECT pg_drop_replication_slot('" + cause.slotName() + "')) and let postlog create it. "
						+ "Always create the publication before the slot.",
				cause);
	}

}
