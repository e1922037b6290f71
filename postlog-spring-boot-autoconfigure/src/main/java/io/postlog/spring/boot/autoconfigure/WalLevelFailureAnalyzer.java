package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.WalLevelException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link WalLevelException} raised while postlog set up replication.
 */
class WalLevelFailureAnalyzer extends AbstractFailureAnalyzer<WalLevelException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, WalLevelException cause) {
		return new FailureAnalysis(
				"postlog needs logical decoding, but the server's wal_level is not 'logical': " + cause.getMessage(),
				"Set wal_level = logical in postgresql.conf (or ALTER SYSTEM SET wal_level = logical) and restart PostgreSQL. "
						+ "On a managed service, turn on its logical replication option (for example rds.logical_replication = 1).",
				cause);
	}

}
