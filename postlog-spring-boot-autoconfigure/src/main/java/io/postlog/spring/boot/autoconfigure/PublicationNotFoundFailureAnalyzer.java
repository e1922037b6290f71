package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.PublicationNotFoundException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link PublicationNotFoundException} raised while postlog set up
 * replication.
 */
class PublicationNotFoundFailureAnalyzer extends AbstractFailureAnalyzer<PublicationNotFoundException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, PublicationNotFoundException cause) {
		return new FailureAnalysis("The publication postlog is configured to use does not exist: " + cause.getMessage(),
				"Create the publication (CREATE PUBLICATION <name> FOR TABLE ...), correct postlog.publication.name, "
						+ "or set postlog.publication.mode=create-if-missing to let postlog create it.",
				cause);
	}

}
