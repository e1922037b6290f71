package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.ReplicaIdentityException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link ReplicaIdentityException}: published tables without a usable replica
 * identity.
 */
class ReplicaIdentityFailureAnalyzer extends AbstractFailureAnalyzer<ReplicaIdentityException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ReplicaIdentityException cause) {
		return new FailureAnalysis(
				"Tables postlog publishes have no usable replica identity: " + cause.getMessage()
						+ ". Without one PostgreSQL cannot say which row an update or delete changed.",
				"Give each of " + cause.tables() + " a primary key, or run ALTER TABLE <table> REPLICA IDENTITY FULL "
						+ "(old rows are then logged whole). For insert-only tables, create the publication "
						+ "yourself WITH (publish = 'insert, truncate') and set postlog.publication.mode=existing.",
				cause);
	}

}
