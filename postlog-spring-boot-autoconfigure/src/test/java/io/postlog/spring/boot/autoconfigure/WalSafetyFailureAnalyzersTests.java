package io.postlog.spring.boot.autoconfigure;

import java.util.List;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.PublicationCreatedAfterSlotException;
import io.postlog.admin.ReplicaIdentityException;
import io.postlog.admin.ReplicationCapacityException;
import io.postlog.admin.ServerVersionException;
import io.postlog.admin.SlotLostException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The analyses of the WAL-safety failures say what happened and what to do.
 */
class WalSafetyFailureAnalyzersTests {

	@Test
	void aMissingSlotIsExplainedAsAFailoverOrADrop() {
		SlotLostException loss = new SlotLostException("orders", SlotLostException.Reason.MISSING, null, null,
				Lsn.parse("0/5000000"), null);
		FailureAnalysis analysis = new SlotLostFailureAnalyzer().analyze(loss);
		assertThat(analysis.getDescription()).contains("Replication slot 'orders' is lost",
				"failed over to a standby that had no synchronised copy", "changes after 0/5000000");
		assertThat(analysis.getAction()).contains("postlog.slot.on-lost=recreate",
				"SELECT pg_drop_replication_slot('orders')", "postlog.slot.retained");
	}

	@Test
	void versionCapacityPublicationOrderAndReplicaIdentityEachSayWhatToDo() {
		assertThat(new ServerVersionFailureAnalyzer()
			.analyze(new ServerVersionException("Failover slots", 170000, 160009))).satisfies((analysis) -> {
				assertThat(analysis.getDescription())
					.contains("Failover slots need PostgreSQL 17 or later; the server is PostgreSQL 16.9 (160009)");
				assertThat(analysis.getAction()).contains("postlog.slot.failover=false", "17 or later");
			});
		assertThat(new ReplicationCapacityFailureAnalyzer()
			.analyze(new ReplicationCapacityException("max_replication_slots", 10, 10))
			.getAction()).contains("pg_drop_replication_slot", "raise max_replication_slots");
		assertThat(new ReplicationCapacityFailureAnalyzer()
			.analyze(new ReplicationCapacityException("max_wal_senders", 10, 10))
			.getDescription()).contains("no free WAL sender", "max_wal_senders is 10 and 10 are in use");
		assertThat(new PublicationCreatedAfterSlotFailureAnalyzer()
			.analyze(new PublicationCreatedAfterSlotException("orders", "orders_pub", Lsn.parse("0/1"), null))
			.getAction()).contains("pg_replication_slot_advance('orders', pg_current_wal_lsn())",
					"create the publication before the slot");
		assertThat(new ReplicaIdentityFailureAnalyzer()
			.analyze(new ReplicaIdentityException("pub", List.of(TableId.parse("logs"))))
			.getAction()).contains("[public.logs]", "REPLICA IDENTITY FULL", "postlog.publication.mode=existing");
	}

}
