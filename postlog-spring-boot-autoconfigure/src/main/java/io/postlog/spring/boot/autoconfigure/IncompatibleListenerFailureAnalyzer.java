package io.postlog.spring.boot.autoconfigure;

import io.postlog.consumer.IncompatibleSubscriptionException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an {@link IncompatibleSubscriptionException}: a listener on lanes, or one that
 * takes an {@code Acknowledgment}, in a consumer whose checkpoint store is {@code jdbc}.
 */
class IncompatibleListenerFailureAnalyzer extends AbstractFailureAnalyzer<IncompatibleSubscriptionException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, IncompatibleSubscriptionException cause) {
		String what = (cause.concurrency() > 1) ? "has concurrency " + cause.concurrency() : "takes an Acknowledgment";
		String fix = (cause.concurrency() > 1) ? "give the listener concurrency = \"1\""
				: "remove the Acknowledgment parameter (with the jdbc store a listener's work is done when it returns)";
		return new FailureAnalysis("postlog listener '" + cause.subscriptionId() + "' " + what
				+ ", but postlog.checkpoint.store=jdbc delivers each source transaction inside one transaction of the "
				+ "application's transaction manager on the delivery thread, which must be finished when the listener "
				+ "returns, so that its work and the checkpoint commit together.",
				"Either " + fix + ", or set postlog.checkpoint.store=slot (at-least-once delivery: deduplicate "
						+ "with Change.id()).",
				cause);
	}

}
