package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.InsufficientPrivilegeException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link InsufficientPrivilegeException} raised while postlog set up
 * replication.
 */
class InsufficientPrivilegeFailureAnalyzer extends AbstractFailureAnalyzer<InsufficientPrivilegeException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InsufficientPrivilegeException cause) {
		return new FailureAnalysis("postlog's database role may not do what replication needs: " + cause.getMessage(),
				"Grant the role the REPLICATION attribute (ALTER ROLE <role> REPLICATION), or set postlog.datasource.username "
						+ "to a role that has it; creating a publication also needs ownership of its tables "
						+ "(or create the publication beforehand and set postlog.publication.mode=existing).",
				cause);
	}

}
