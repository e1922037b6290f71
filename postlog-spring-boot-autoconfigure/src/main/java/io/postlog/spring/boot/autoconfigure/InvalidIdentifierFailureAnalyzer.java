package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.InvalidIdentifierException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link InvalidIdentifierException} raised while postlog set up replication.
 */
class InvalidIdentifierFailureAnalyzer extends AbstractFailureAnalyzer<InvalidIdentifierException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidIdentifierException cause) {
		return new FailureAnalysis(
				"A name postlog would send to PostgreSQL is not a valid identifier: " + cause.getMessage(),
				"Slot names may hold only lower-case letters, digits and underscores (at most 63 characters); "
						+ "check postlog.slot.name, postlog.publication.name, postlog.tables and the tables of @PgChangeListener.",
				cause);
	}

}
