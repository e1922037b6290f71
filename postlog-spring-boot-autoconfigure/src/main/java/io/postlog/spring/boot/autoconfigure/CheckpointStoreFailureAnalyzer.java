package io.postlog.spring.boot.autoconfigure;

import io.postlog.consumer.checkpoint.CheckpointStoreException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link CheckpointStoreException} raised while postlog set up the
 * {@code jdbc} checkpoint store: a missing table, a missing privilege, or a transaction
 * manager that does not manage the application's DataSource.
 */
class CheckpointStoreFailureAnalyzer extends AbstractFailureAnalyzer<CheckpointStoreException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, CheckpointStoreException cause) {
		return new FailureAnalysis(
				"postlog.checkpoint.store=jdbc could not set up its checkpoint: " + cause.getMessage(),
				"Create the checkpoint table (docs/delivery.md gives its DDL) and grant the application's role SELECT, "
						+ "INSERT and UPDATE on it, or let postlog create it (postlog.checkpoint.create-table=true, "
						+ "with CREATE on its schema); make sure the application's PlatformTransactionManager manages "
						+ "its DataSource (mark one @Primary if there are several); or set postlog.checkpoint.store=slot.",
				cause);
	}

}
