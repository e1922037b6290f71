package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.PgIdentifiers;
import io.postlog.spring.TableNotPublishedException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link TableNotPublishedException}: the publication exists without a table a
 * listener reads, and postlog is not to change it.
 */
class TableNotPublishedFailureAnalyzer extends AbstractFailureAnalyzer<TableNotPublishedException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, TableNotPublishedException cause) {
		return new FailureAnalysis(cause.getMessage() + ": no change of it would ever reach the listener.",
				"Add the table to the publication: ALTER PUBLICATION "
						+ PgIdentifiers.quote("publication", cause.publication()) + " ADD TABLE "
						+ PgIdentifiers.quote(cause.table())
						+ "; or set postlog.publication.mode=sync to have postlog add the tables its listeners read "
						+ "(the application's role must own them).",
				cause);
	}

}
