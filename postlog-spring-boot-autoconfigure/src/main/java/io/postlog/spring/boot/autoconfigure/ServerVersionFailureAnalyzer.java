package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.ServerVersionException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link ServerVersionException}: a capability the configured PostgreSQL
 * cannot provide.
 */
class ServerVersionFailureAnalyzer extends AbstractFailureAnalyzer<ServerVersionException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ServerVersionException cause) {
		return new FailureAnalysis("postlog was asked for something the server cannot do: " + cause.getMessage(),
				"Turn the feature off (for failover slots: postlog.slot.failover=false) or upgrade PostgreSQL to "
						+ (cause.requiredVersion() / 10000) + " or later.",
				cause);
	}

}
