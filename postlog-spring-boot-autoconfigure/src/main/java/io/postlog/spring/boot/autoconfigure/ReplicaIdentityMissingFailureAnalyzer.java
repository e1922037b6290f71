package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.PgIdentifiers;
import io.postlog.spring.ReplicaIdentityMissingException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link ReplicaIdentityMissingException}: publishing the table would make
 * PostgreSQL refuse the application's own updates and deletes of it.
 */
class ReplicaIdentityMissingFailureAnalyzer extends AbstractFailureAnalyzer<ReplicaIdentityMissingException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ReplicaIdentityMissingException cause) {
		String table = PgIdentifiers.quote(cause.table());
		return new FailureAnalysis(cause.getMessage()
				+ ". Once published for UPDATE and DELETE, PostgreSQL would refuse the application's own UPDATE and "
				+ "DELETE on it (\"cannot update table because it does not have a replica identity and publishes "
				+ "updates\"), and listeners could not tell which row changed.",
				"Give the table a primary key (ALTER TABLE " + table + " ADD PRIMARY KEY (...)), or make it send whole "
						+ "rows (ALTER TABLE " + table + " REPLICA IDENTITY FULL, which costs more WAL per update "
						+ "and delete).",
				cause);
	}

}
