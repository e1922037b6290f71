package io.postlog.spring.boot.autoconfigure;

import io.postlog.spring.ListenerTableNotFoundException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link ListenerTableNotFoundException}: a listener's table does not exist.
 */
class ListenerTableNotFoundFailureAnalyzer extends AbstractFailureAnalyzer<ListenerTableNotFoundException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ListenerTableNotFoundException cause) {
		return new FailureAnalysis(cause.getMessage() + " in the application's database.",
				"Create table " + cause.table() + " before the application starts (for example with Flyway or "
						+ "Liquibase, which run before postlog), or correct the name in "
						+ (cause.readers().equals("postlog.tables") ? "postlog.tables"
								: "@PgChangeListener(tables = ...) of " + cause.readers())
						+ ". An unqualified name means the public schema; ${...} placeholders are resolved first.",
				cause);
	}

}
