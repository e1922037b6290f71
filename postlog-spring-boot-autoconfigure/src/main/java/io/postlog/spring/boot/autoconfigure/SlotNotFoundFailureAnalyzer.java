package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.SlotNotFoundException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link SlotNotFoundException} raised while postlog set up replication.
 */
class SlotNotFoundFailureAnalyzer extends AbstractFailureAnalyzer<SlotNotFoundException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, SlotNotFoundException cause) {
		return new FailureAnalysis(
				"The replication slot postlog is configured to use does not exist: " + cause.getMessage(),
				"Create the slot (SELECT pg_create_logical_replication_slot('<name>', 'pgoutput')), correct postlog.slot.name, "
						+ "or set postlog.slot.lifecycle=create-if-missing to let postlog create it.",
				cause);
	}

}
