package io.postlog.spring.boot.autoconfigure;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.consumer.CheckpointStore;
import io.postlog.consumer.IncompatibleSubscriptionException;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.Subscription;
import io.postlog.stream.LogicalStreamFactory;
import org.junit.jupiter.api.Test;

import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The core's refusal of a listener on lanes, or an acknowledging one, under the
 * {@code jdbc} store, explained in Spring terms.
 */
class IncompatibleListenerFailureAnalyzerTests {

	private final IncompatibleListenerFailureAnalyzer analyzer = new IncompatibleListenerFailureAnalyzer();

	@Test
	void listenerOnLanesIsToldToUseConcurrencyOneOrTheSlotStore() {
		FailureAnalysis analysis = analyze(Subscription.onChange("Orders.onOrder", (change) -> {
		}).withConcurrency(4));
		assertThat(analysis.getDescription()).contains("postlog listener 'Orders.onOrder' has concurrency 4",
				"postlog.checkpoint.store=jdbc");
		assertThat(analysis.getAction()).contains("concurrency = \"1\"", "postlog.checkpoint.store=slot");
	}

	@Test
	void acknowledgingListenerIsToldToDropTheAcknowledgment() {
		FailureAnalysis analysis = analyze(
				Subscription.onChange("Orders.later", (Change change, Acknowledgment ack) -> ack.acknowledge()));
		assertThat(analysis.getDescription()).contains("'Orders.later' takes an Acknowledgment");
		assertThat(analysis.getAction()).contains("remove the Acknowledgment parameter");
	}

	private FailureAnalysis analyze(Subscription subscription) {
		LogicalStreamFactory unused = (request) -> {
			throw new IllegalStateException("not opened");
		};
		IncompatibleSubscriptionException refused = catchThrowableOfType(IncompatibleSubscriptionException.class,
				() -> ReplicationConsumer.builder()
					.streamFactory(unused)
					.checkpointStore(new TransactionalStore())
					.subscribe(subscription)
					.build());
		assertThat(refused).isNotNull();
		return this.analyzer.analyze(new IllegalStateException("start-up failed", refused));
	}

	static final class TransactionalStore implements CheckpointStore {

		@Override
		public Lsn load() {
			return Lsn.INVALID;
		}

		@Override
		public void begin() {
		}

		@Override
		public void commit(Lsn commitLsn) {
		}

		@Override
		public void rollback() {
		}

	}

}
