package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.PublicationFilterException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link PublicationFilterException}: a row filter or column list of
 * {@code postlog.filters} that the server refuses, that would make the table's updates
 * fail, or that an existing publication holds otherwise.
 */
class PublicationFilterFailureAnalyzer extends AbstractFailureAnalyzer<PublicationFilterException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, PublicationFilterException cause) {
		return new FailureAnalysis(cause.getMessage(),
				"Correct postlog.filters for table " + cause.table()
						+ " (or postlog.groups.<name>.filters for a group), or the publication, as the message says.",
				cause);
	}

}
