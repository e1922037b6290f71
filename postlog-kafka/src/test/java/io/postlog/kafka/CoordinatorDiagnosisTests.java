package io.postlog.kafka;

import java.time.Duration;
import java.util.Map;

import io.postlog.kafka.CoordinatorDiagnosis.Findings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each explanation of a missing transaction coordinator, branch by branch, and a
 * diagnosis that cannot reach the cluster.
 */
class CoordinatorDiagnosisTests {

	@Test
	void explainWhenReplicationFactorIsAboveBrokerCountAndLogIsMissingGivesTheFix() {
		assertThat(CoordinatorDiagnosis.explain(new Findings(1, 3, 2, false, 0, 0)))
			.isEqualTo("the brokers create the transaction state log (__transaction_state) with "
					+ "transaction.state.log.replication.factor=3 replicas, but the cluster has 1 broker, so the log "
					+ "cannot be created and no transaction coordinator is available: set "
					+ "transaction.state.log.replication.factor and transaction.state.log.min.isr to at most 1 on the "
					+ "brokers and restart them, or add brokers");
	}

	@Test
	void explainWhenMinIsrIsAboveBrokerCountGivesTheFix() {
		assertThat(CoordinatorDiagnosis.explain(new Findings(2, 2, 3, true, 50, 0)))
			.isEqualTo("the brokers need transaction.state.log.min.isr=3 in-sync replicas of the transaction state "
					+ "log (__transaction_state), but the cluster has 2 brokers, so no transaction coordinator can "
					+ "write it: set transaction.state.log.replication.factor and transaction.state.log.min.isr to at "
					+ "most 2 on the brokers and restart them, or add brokers");
	}

	@Test
	void explainWhenLogPartitionsHaveNoLeaderCountsThem() {
		assertThat(CoordinatorDiagnosis.explain(new Findings(3, 3, 2, true, 50, 17)))
			.isEqualTo("17 of the 50 partitions of the transaction state log (__transaction_state) have no leader "
					+ "or fewer in-sync replicas than transaction.state.log.min.isr=2: bring their brokers back");
	}

	@Test
	void explainWhenReplicationFactorExceedsBrokersButLogExistsLooksAtTheLog() {
		// The log was created when there were more brokers; its partitions decide.
		assertThat(CoordinatorDiagnosis.explain(new Findings(1, 3, 1, true, 50, 0)))
			.startsWith("the cluster has 1 broker and its transaction state log (__transaction_state) has a leader "
					+ "and enough in-sync replicas for every partition; check that the relay reaches every broker");
	}

	@Test
	void explainWhenNothingIsWrongPointsAtTheNetwork() {
		assertThat(CoordinatorDiagnosis.explain(new Findings(3, 3, 2, false, 0, 0)))
			.isEqualTo("the cluster has 3 brokers and its transaction state log (__transaction_state) does not exist "
					+ "yet; check that the relay reaches every broker at its advertised address (advertised.listeners) "
					+ "and that the brokers are not still loading the log");
	}

	@Test
	void explainWhenSettingsAreUnknownDoesNotGuess() {
		assertThat(CoordinatorDiagnosis.explain(new Findings(1, null, null, false, 0, 0)))
			.startsWith("the cluster has 1 broker and its transaction state log (__transaction_state) does not exist");
		assertThat(CoordinatorDiagnosis.explain(new Findings(0, null, null, false, 0, 0)))
			.isEqualTo("the cluster reports no brokers");
	}

	@Test
	void diagnoseWhenNoBrokerAnswersSaysSoWithinItsBound() {
		// Port 9 (discard) has no broker: the admin client never gets an answer.
		CoordinatorDiagnosis diagnosis = new CoordinatorDiagnosis(Map.of("bootstrap.servers", "localhost:9"),
				Duration.ofMillis(800));
		long started = System.nanoTime();
		String cause = diagnosis.diagnose();
		long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
		assertThat(cause).startsWith("the cluster ");
		assertThat(millis).isLessThan(3000);
	}

}
