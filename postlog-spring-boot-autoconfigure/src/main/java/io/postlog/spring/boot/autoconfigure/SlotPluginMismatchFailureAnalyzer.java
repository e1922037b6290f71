package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.SlotPluginMismatchException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link SlotPluginMismatchException} raised while postlog set up replication.
 */
class SlotPluginMismatchFailureAnalyzer extends AbstractFailureAnalyzer<SlotPluginMismatchException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, SlotPluginMismatchException cause) {
		return new FailureAnalysis(
				"The replication slot exists but was created with another output plugin: " + cause.getMessage(),
				"Use another slot name (postlog.slot.name), or drop the slot (SELECT pg_drop_replication_slot('<name>')) "
						+ "if nothing else reads it, so that postlog creates it with pgoutput.",
				cause);
	}

}
