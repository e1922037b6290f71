package io.postlog.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.ReplicationConsumerException;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A transactional {@link CheckpointStore} on {@link FakeServer}: each source
 * transaction's effects and the checkpoint commit together, transactions at or below the
 * checkpoint are acknowledged without calling anyone, and a failure rolls back and
 * redelivers, so the sink sees every change once.
 */
class TransactionalCheckpointTests {

	private final FakeServer server = new FakeServer();

	private final MemorySink sink = new MemorySink();

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void eachSourceTransactionCommitsWithItsCheckpointBeforeTheSlotMoves() {
		FakeServer.Tx first = this.server.commitInserts(1, 2);
		FakeServer.Tx second = this.server.commitInserts(3);
		ReplicationConsumer consumer = start(builder().changeHandler(this.sink::write));
		await().until(() -> consumer.ackedLsn().equals(second.endLsn()));
		assertThat(this.sink.committed).containsExactly(1, 2, 3);
		assertThat(this.sink.checkpoints).containsExactly(first.commitLsn(), second.commitLsn());
		assertThat(this.sink.log).startsWith("begin", "write 1", "write 2", "commit " + first.commitLsn(), "begin",
				"write 3", "commit " + second.commitLsn());
	}

	@Test
	void transactionsAtOrBelowTheCheckpointAreAcknowledgedWithoutCallingAnyone() {
		this.server.commitInserts(1);
		FakeServer.Tx second = this.server.commitInserts(2);
		FakeServer.Tx third = this.server.commitInserts(3);
		this.sink.checkpoint = second.commitLsn();
		List<Object> calls = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(builder().changeHandler((change) -> {
			calls.add(change.after().get("id"));
			this.sink.write(change);
		}));
		await().until(() -> consumer.ackedLsn().equals(third.endLsn()));
		assertThat(calls).containsExactly(3);
		await().until(() -> this.server.confirmed().equals(third.endLsn()));
	}

	@Test
	void handlerThatFailsAfterWritingIsRolledBackAndTheRetryWritesOnce() {
		FakeServer.Tx tx = this.server.commitInserts(1, 2, 3);
		AtomicInteger failures = new AtomicInteger(2);
		List<Object> other = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(
				builder().retryPolicy(retry(5)).subscribe(Subscription.onChange("sink", (change) -> {
					this.sink.write(change);
					if (change.after().get("id").equals(3) && failures.getAndDecrement() > 0) {
						throw new IllegalStateException("after writing");
					}
				})).subscribe(Subscription.onChange("other", (change) -> other.add(change.after().get("id")))));
		await().until(() -> consumer.ackedLsn().equals(tx.endLsn()));
		assertThat(this.sink.committed).containsExactly(1, 2, 3);
		assertThat(this.sink.rollbacks).isEqualTo(2);
		// Every subscription joins the sink transaction, so all are called again.
		assertThat(other).containsExactly(1, 2, 1, 2, 1, 2, 3);
		assertThat(this.server.opens.get()).isEqualTo(3);
	}

	@Test
	void changeWhoseRetriesRanOutGoesToTheErrorHandlerInsideTheSinkTransaction() {
		this.server.commitInserts(1, 2);
		FakeServer.Tx last = this.server.commitInserts(3);
		List<HandlerFailedException> deadLetters = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(
				builder().retryPolicy(retry(2)).subscribe(Subscription.onChange("sink", (change) -> {
					if (change.after().get("id").equals(2)) {
						throw new IllegalStateException("poison");
					}
					this.sink.write(change);
				}).withErrorHandler((failure) -> {
					deadLetters.add(failure);
					this.sink.log.add("dead-letter " + failure.change().after().get("id"));
				})));
		await().until(() -> consumer.ackedLsn().equals(last.endLsn()));
		assertThat(this.sink.committed).containsExactly(1, 3);
		assertThat(deadLetters).singleElement().satisfies((failure) -> assertThat(failure.attempts()).isEqualTo(2));
		int deadLetter = this.sink.log.indexOf("dead-letter 2");
		assertThat(this.sink.log.subList(0, deadLetter)).contains("begin");
		assertThat(this.sink.log.get(deadLetter + 1)).startsWith("commit");
	}

	@Test
	void oneSinkTransactionCoversSeveralSourceTransactionsUpToTheBatch() {
		List<FakeServer.Tx> txs = new ArrayList<>();
		for (int i = 1; i <= 5; i++) {
			txs.add(this.server.commitInserts(i));
		}
		// A batch takes only what is already waiting: the first change is held until the
		// reader has handed every transaction on (read them all, and come back for more),
		// so
		// a slow reader thread cannot make this a trickle.
		AtomicInteger readsAtEnd = new AtomicInteger(-1);
		ReplicationConsumer consumer = start(
				builder().checkpointBatch(3, Duration.ofSeconds(10)).changeHandler((change) -> {
					if (Integer.valueOf(1).equals(change.after().get("id"))) {
						await().until(() -> readerCameBackForMore(readsAtEnd));
					}
					this.sink.write(change);
				}));
		await().until(() -> consumer.ackedLsn().equals(txs.get(4).endLsn()));
		assertThat(this.sink.committed).containsExactly(1, 2, 3, 4, 5);
		assertThat(this.sink.checkpoints).startsWith(txs.get(2).commitLsn()).endsWith(txs.get(4).commitLsn());
		assertThat(this.sink.checkpoints).hasSizeLessThanOrEqualTo(3);
	}

	private boolean readerCameBackForMore(AtomicInteger readsAtEnd) {
		FakeServer.Stream stream = this.server.current();
		if (stream == null || stream.pending() > 0) {
			return false;
		}
		readsAtEnd.compareAndSet(-1, stream.reads.get());
		return stream.reads.get() > readsAtEnd.get();
	}

	@Test
	void aTrickleIsCommittedWhenNothingMoreIsWaiting() {
		ReplicationConsumer consumer = start(
				builder().checkpointBatch(100, Duration.ofSeconds(30)).changeHandler(this.sink::write));
		for (int i = 1; i <= 3; i++) {
			FakeServer.Tx tx = this.server.commitInserts(i);
			await().atMost(Duration.ofSeconds(2)).until(() -> consumer.ackedLsn().equals(tx.endLsn()));
		}
		assertThat(this.sink.checkpoints).hasSize(3);
	}

	@Test
	void aFailedCommitIsNeverTriedAgainAndItsTransactionsAreDeliveredAgain() {
		FakeServer.Tx first = this.server.commitInserts(1, 2);
		FakeServer.Tx last = this.server.commitInserts(3);
		this.sink.commitFailures = 1;
		ReplicationConsumer consumer = start(builder().changeHandler(this.sink::write));
		await().until(() -> consumer.ackedLsn().equals(last.endLsn()));
		assertThat(this.sink.committed).containsExactly(1, 2, 3);
		assertThat(this.sink.log).containsSubsequence("begin", "write 1", "write 2", "commit failed", "rollback",
				"begin", "write 1", "write 2", "commit " + first.commitLsn());
		int failed = this.sink.log.indexOf("commit failed");
		assertThat(this.sink.log.get(failed + 1)).as("no second commit of the failed transaction")
			.isEqualTo("rollback");
	}

	@Test
	void transactionalStoreRefusesLanesAndAcknowledgingSubscriptions() {
		assertThatExceptionOfType(ReplicationConsumerException.class).isThrownBy(
				() -> builder().subscribe(Subscription.onChange("lanes", this.sink::write).withConcurrency(2)).build())
			.withMessageContaining("'lanes' runs on 2 lanes");
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> builder()
				.subscribe(Subscription.onChange("acks", (Change change, Acknowledgment ack) -> ack.acknowledge()))
				.build())
			.withMessageContaining("'acks' acknowledges itself");
	}

	private ReplicationConsumer.Builder builder() {
		return ReplicationConsumer.builder()
			.streamFactory(this.server)
			.slotName("sink_slot")
			.slotLifecycle(SlotLifecycle.EXISTING)
			.publicationMode(PublicationMode.EXISTING)
			.retryPolicy(retry(3))
			.stopTimeout(Duration.ofSeconds(2))
			.checkpointStore(this.sink);
	}

	private ReplicationConsumer start(ReplicationConsumer.Builder builder) {
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		consumer.start();
		return consumer;
	}

	private static RetryPolicy retry(int maxAttempts) {
		return new RetryPolicy(Duration.ofMillis(20), 2, Duration.ofMillis(100), maxAttempts);
	}

	/**
	 * A sink whose writes become visible only when its transaction commits.
	 */
	static final class MemorySink implements CheckpointStore {

		final List<Object> committed = new CopyOnWriteArrayList<>();

		final List<Lsn> checkpoints = new CopyOnWriteArrayList<>();

		final List<String> log = new CopyOnWriteArrayList<>();

		private final List<Object> pending = new ArrayList<>();

		volatile Lsn checkpoint = Lsn.INVALID;

		volatile int rollbacks;

		volatile int commitFailures;

		private boolean open;

		void write(Change change) {
			this.pending.add(change.after().get("id"));
			this.log.add("write " + change.after().get("id"));
		}

		@Override
		public Lsn load() {
			return this.checkpoint;
		}

		@Override
		public void begin() {
			this.pending.clear();
			this.open = true;
			this.log.add("begin");
		}

		@Override
		public void commit(Lsn commitLsn) {
			if (!this.open) {
				this.log.add("commit without a transaction");
				throw new IllegalStateException("No sink transaction");
			}
			this.open = false;
			if (this.commitFailures > 0) {
				this.commitFailures--;
				this.pending.clear();
				this.log.add("commit failed");
				throw new IllegalStateException("commit failed");
			}
			this.committed.addAll(this.pending);
			this.pending.clear();
			this.checkpoint = commitLsn;
			this.checkpoints.add(commitLsn);
			this.log.add("commit " + commitLsn);
		}

		@Override
		public void rollback() {
			this.open = false;
			this.pending.clear();
			this.rollbacks++;
			this.log.add("rollback");
		}

		@Override
		public String toString() {
			return "memory";
		}

	}

}
