package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.ReplicationCapacityException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link ReplicationCapacityException}: no free replication slot or WAL
 * sender.
 */
class ReplicationCapacityFailureAnalyzer extends AbstractFailureAnalyzer<ReplicationCapacityException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ReplicationCapacityException cause) {
		String action = "max_replication_slots".equals(cause.setting())
				? "Drop replication slots nobody reads (SELECT slot_name, database, active FROM pg_replication_slots; "
						+ "SELECT pg_drop_replication_slot('<name>')), or raise max_replication_slots and restart "
						+ "PostgreSQL."
				: "Raise max_wal_senders (one per postlog application and physical standby, plus one for "
						+ "reconnects) and restart PostgreSQL, or end replication connections nobody needs "
						+ "(SELECT pid, application_name FROM pg_stat_replication).";
		return new FailureAnalysis("postlog cannot get a replication resource: " + cause.getMessage(), action, cause);
	}

}
