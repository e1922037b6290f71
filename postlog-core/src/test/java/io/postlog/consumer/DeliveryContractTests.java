package io.postlog.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.admin.ConnectionLostException;
import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.stream.LogicalStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * One test per clause of the delivery contract (DESIGN.md, "Delivery contract" and
 * "Acknowledgements, concurrency and groups"), on {@link FakeServer}, named after the
 * clause; the real-server tests prove the same against PostgreSQL.
 */
class DeliveryContractTests {

	private static final String SLOT = "contract_slot";

	private final FakeServer server = new FakeServer();

	private final ReplicationConsumerTests.Recorder recorder = new ReplicationConsumerTests.Recorder();

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void orderConcurrentSubscriptionKeepsTheOrderOfEachKeyAndAcknowledgesInCommitOrder() {
		for (int tx = 0; tx < 50; tx++) {
			this.server.commitInserts(tx % 5, 100 + tx, (tx + 1) % 5);
		}
		FakeServer.Tx last = this.server.commitInserts(999);
		Map<Integer, List<Lsn>> perKey = new ConcurrentHashMap<>();
		Map<String, Integer> threads = new ConcurrentHashMap<>();
		start(builder().subscribe(Subscription.onChange("lanes", (change) -> {
			int key = (Integer) change.after().get("id");
			perKey.computeIfAbsent(key, (k) -> new CopyOnWriteArrayList<>()).add(change.commitLsn());
			threads.merge(Thread.currentThread().getName(), 1, Integer::sum);
			Thread.sleep(1);
		}).withConcurrency(4)));
		await().until(() -> this.server.confirmed().equals(last.endLsn()));
		assertThat(perKey.values()).allSatisfy((lsns) -> assertThat(lsns).isSorted());
		assertThat(perKey.get(0)).hasSize(20);
		assertThat(threads.keySet()).hasSizeGreaterThan(1).allMatch((name) -> name.startsWith("postlog-lane-"));
		assertThat(this.recorder.acknowledged).isSorted();
	}

	@Test
	void ackNeverPassesTheFirstTransactionWhoseAcknowledgmentIsOutstanding() {
		FakeServer.Tx first = this.server.commitInserts(1);
		FakeServer.Tx second = this.server.commitInserts(2);
		FakeServer.Tx third = this.server.commitInserts(3);
		Map<Integer, Acknowledgment> acks = new ConcurrentHashMap<>();
		ReplicationConsumer consumer = start(builder().subscribe(Subscription.onChange("deferred",
				(Change change, Acknowledgment ack) -> acks.put((Integer) change.after().get("id"), ack))));
		await().until(() -> acks.size() == 3);
		acks.get(3).acknowledge();
		acks.get(2).acknowledge();
		acks.get(2).acknowledge();
		await().during(Duration.ofMillis(400)).until(() -> !consumer.ackedLsn().isAfter(Lsn.INVALID));
		assertThat(this.server.confirmed()).isEqualTo(Lsn.INVALID);
		acks.get(1).acknowledge();
		await().until(() -> consumer.ackedLsn().equals(third.endLsn()));
		await().until(() -> this.server.confirmed().equals(third.endLsn()));
		assertThat(this.recorder.acknowledged).containsExactly(third.endLsn());
		assertThat(first.endLsn()).isLessThan(second.endLsn());
	}

	@Test
	void ackWaitsForEverySubscriptionOfTheTransaction() throws Exception {
		FakeServer.Tx tx = this.server.commitInserts(1);
		CountDownLatch release = new CountDownLatch(1);
		List<Acknowledgment> later = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(builder().subscribe(Subscription.onChange("fast", (change) -> {
		}))
			.subscribe(Subscription.onChange("lanes", (change) -> release.await()).withConcurrency(2))
			.subscribe(Subscription.onTransaction("deferred",
					(io.postlog.Transaction transaction, Acknowledgment ack) -> later.add(ack))));
		await().until(() -> later.size() == 1);
		Thread.sleep(200);
		assertThat(consumer.ackedLsn()).isEqualTo(Lsn.INVALID);
		release.countDown();
		Thread.sleep(200);
		assertThat(consumer.ackedLsn()).isEqualTo(Lsn.INVALID);
		later.get(0).acknowledge();
		await().until(() -> consumer.ackedLsn().equals(tx.endLsn()));
	}

	@Test
	void redeliveryAfterALostConnectionReachesOnlySubscriptionsThatHadNotHandledIt() {
		FakeServer.Tx tx = this.server.commitInserts(1, 2);
		List<Object> seenByFirst = new CopyOnWriteArrayList<>();
		List<Object> seenBySecond = new CopyOnWriteArrayList<>();
		Map<Integer, Acknowledgment> acks = new ConcurrentHashMap<>();
		ReplicationConsumer consumer = start(builder()
			.subscribe(Subscription.onChange("first", (change) -> seenByFirst.add(change.after().get("id"))))
			.subscribe(Subscription.onChange("second", (Change change, Acknowledgment ack) -> {
				seenBySecond.add(change.after().get("id"));
				acks.put((Integer) change.after().get("id"), ack);
			})));
		await().until(() -> acks.size() == 2);
		// Nothing is acknowledged yet, so the server sends the transaction again.
		this.server.dropConnection();
		await().until(() -> this.server.opens.get() == 2 && consumer.state() == ConsumerState.RUNNING);
		await().during(Duration.ofMillis(300)).until(() -> seenByFirst.size() == 2 && seenBySecond.size() == 2);
		acks.values().forEach(Acknowledgment::acknowledge);
		await().until(() -> consumer.ackedLsn().equals(tx.endLsn()));
		assertThat(seenByFirst).containsExactly(1, 2);
		assertThat(seenBySecond).containsExactly(1, 2);
	}

	@Test
	void emptyTransactionsAreAcknowledgedAndIdleAcknowledgesTheKeepalive() {
		FakeServer.Tx empty = this.server.commit(List.of());
		ReplicationConsumer consumer = start(builder().changeHandler((change) -> {
		}));
		await().until(() -> consumer.ackedLsn().equals(empty.endLsn()));
		Lsn keepalive = Lsn.of(empty.endLsn().value() + 1024);
		this.server.keepalive(keepalive);
		await().until(() -> this.server.confirmed().equals(keepalive));
	}

	@Test
	void handlerFailureRetriesTheFailingSubscriptionAloneAndThenStopsItAlone() {
		FakeServer.Tx first = this.server.commitInserts(1);
		FakeServer.Tx failed = this.server.commitInserts(2);
		AtomicInteger healthyCalls = new AtomicInteger();
		AtomicInteger failingCalls = new AtomicInteger();
		ReplicationConsumer consumer = start(builder().retryPolicy(retry(3))
			.subscribe(Subscription.onChange("healthy", (change) -> healthyCalls.incrementAndGet()))
			.subscribe(Subscription.onChange("failing", (change) -> {
				if (change.after().get("id").equals(2)) {
					failingCalls.incrementAndGet();
					throw new IllegalStateException("boom");
				}
			})));
		await().until(() -> consumer.subscription("failing").state() == SubscriptionState.STOPPED);
		FakeServer.Tx later = this.server.commitInserts(3);
		await().until(() -> healthyCalls.get() == 3);
		assertThat(failingCalls.get()).isEqualTo(3);
		assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
		assertThat(consumer.subscription("healthy").state()).isEqualTo(SubscriptionState.RUNNING);
		// The slot holds at the failed transaction: it is streamed again from there.
		assertThat(consumer.subscription("failing").position()).isEqualTo(failed.commitLsn());
		await().until(() -> consumer.deliveredLsn().equals(later.endLsn()));
		assertThat(consumer.ackedLsn()).isEqualTo(failed.commitLsn()).isGreaterThan(first.endLsn());
		await().until(() -> this.server.confirmed().equals(failed.commitLsn()));
		assertThat(consumer.subscription("failing").cause()).isInstanceOf(HandlerFailedException.class)
			.hasMessageContaining("'failing'")
			.hasMessageContaining("change 0 of transaction");
		assertThat(((HandlerFailedException) consumer.subscription("failing").cause()).attempts()).isEqualTo(3);
	}

	@Test
	void stoppedSubscriptionStartedAgainReceivesItsBacklogOnceAndTheOthersNothingTwice() {
		this.server.commitInserts(1);
		this.server.commitInserts(2);
		AtomicInteger poisoned = new AtomicInteger(2);
		List<Integer> healthy = new CopyOnWriteArrayList<>();
		List<Integer> fixed = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(builder().retryPolicy(retry(2))
			.subscribe(Subscription.onChange("healthy", (change) -> healthy.add((Integer) change.after().get("id"))))
			.subscribe(Subscription.onTransaction("batch", (transaction) -> {
			}))
			.subscribe(Subscription.onChange("fixed", (change) -> {
				int id = (Integer) change.after().get("id");
				if (id == poisoned.get()) {
					throw new IllegalStateException("bug");
				}
				fixed.add(id);
			})));
		await().until(() -> consumer.subscription("fixed").state() == SubscriptionState.STOPPED);
		FakeServer.Tx last = null;
		for (int id = 3; id <= 52; id++) {
			last = this.server.commitInserts(id);
		}
		FakeServer.Tx lastBeforeStart = last;
		await().until(() -> healthy.size() == 52);
		assertThat(fixed).containsExactly(1);
		assertThat(this.server.confirmed()).isLessThan(lastBeforeStart.endLsn());
		poisoned.set(-1);
		consumer.subscription("fixed").start();
		await().until(() -> fixed.size() == 52);
		await().until(() -> consumer.ackedLsn().equals(lastBeforeStart.endLsn()));
		assertThat(consumer.subscription("fixed").state()).isEqualTo(SubscriptionState.RUNNING);
		assertThat(consumer.subscription("fixed").cause()).isNull();
		assertThat(fixed).doesNotHaveDuplicates().hasSize(52).isSorted();
		assertThat(healthy).doesNotHaveDuplicates().hasSize(52);
		assertThat(this.server.opens.get()).isEqualTo(2);
	}

	@Test
	void pausedSubscriptionHoldsTheSlotAndResumesFromItsPosition() {
		FakeServer.Tx first = this.server.commitInserts(1);
		List<Integer> paused = new CopyOnWriteArrayList<>();
		List<Integer> other = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(builder()
			.subscribe(Subscription.onChange("other", (change) -> other.add((Integer) change.after().get("id"))))
			.subscribe(Subscription.onChange("paused", (change) -> paused.add((Integer) change.after().get("id")))));
		await().until(() -> consumer.ackedLsn().equals(first.endLsn()));
		consumer.subscription("paused").pause();
		FakeServer.Tx second = this.server.commitInserts(2);
		FakeServer.Tx third = this.server.commitInserts(3);
		await().until(() -> other.size() == 3);
		assertThat(consumer.subscription("paused").state()).isEqualTo(SubscriptionState.PAUSED);
		assertThat(consumer.subscription("paused").position()).isEqualTo(second.commitLsn());
		assertThat(consumer.ackedLsn()).isEqualTo(second.commitLsn());
		consumer.subscription("paused").resume();
		await().until(() -> consumer.ackedLsn().equals(third.endLsn()));
		assertThat(paused).containsExactly(1, 2, 3);
		assertThat(other).containsExactly(1, 2, 3);
	}

	@Test
	void subscriptionNotStartedWithTheConsumerHoldsTheSlotUntilStarted() {
		FakeServer.Tx first = this.server.commitInserts(1);
		List<Integer> late = new CopyOnWriteArrayList<>();
		List<Integer> other = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(builder()
			.subscribe(Subscription.onChange("other", (change) -> other.add((Integer) change.after().get("id"))))
			.subscribe(Subscription.onChange("late", (change) -> late.add((Integer) change.after().get("id")))
				.withAutoStartup(false)));
		FakeServer.Tx second = this.server.commitInserts(2);
		await().until(() -> other.size() == 2);
		assertThat(consumer.subscription("late").state()).isEqualTo(SubscriptionState.STOPPED);
		assertThat(consumer.subscription("late").cause()).isNull();
		assertThat(consumer.ackedLsn()).isEqualTo(first.commitLsn());
		assertThat(late).isEmpty();
		consumer.subscription("late").start();
		await().until(() -> consumer.ackedLsn().equals(second.endLsn()));
		assertThat(late).containsExactly(1, 2);
		assertThat(other).containsExactly(1, 2);
	}

	@Test
	void handlerThrowingAConnectionClassSqlExceptionIsItsOwnFailureNotALostConnection() {
		FakeServer.Tx tx = this.server.commitInserts(1);
		AtomicInteger calls = new AtomicInteger();
		ReplicationConsumer consumer = start(
				builder().retryPolicy(retry(4)).subscribe(Subscription.onChange("own-connection", (change) -> {
					calls.incrementAndGet();
					throw new java.sql.SQLException("connection refused", "08001");
				})));
		await().until(() -> consumer.subscription("own-connection").state() == SubscriptionState.STOPPED);
		await().during(Duration.ofMillis(300)).until(() -> calls.get() == 4);
		assertThat(this.server.opens.get()).isEqualTo(1);
		assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
		assertThat(consumer.ackedLsn()).isEqualTo(tx.commitLsn());
		HandlerFailedException failure = new HandlerFailedException("failed", "own-connection", tx.commitLsn(), 4, null,
				null, null, new java.sql.SQLException("connection refused", "08006"));
		assertThat(Failures.classify(failure)).isEqualTo(Failures.Outcome.FATAL);
	}

	@Test
	void acknowledgementOutstandingPastTheBoundIsShownAndWarnedOf() {
		FakeServer.Tx tx = this.server.commitInserts(7);
		List<Acknowledgment> kept = new CopyOnWriteArrayList<>();
		try (io.postlog.CapturedStdErr log = io.postlog.CapturedStdErr.start()) {
			ReplicationConsumer consumer = start(builder().unacknowledgedWarning(Duration.ofMillis(300))
				.subscribe(Subscription.onChange("forgetful", (Change change, Acknowledgment ack) -> kept.add(ack))));
			await().until(() -> kept.size() == 1);
			PendingAcknowledgment pending = consumer.subscription("forgetful").oldestUnacknowledged();
			assertThat(pending).isNotNull();
			assertThat(pending.commitLsn()).isEqualTo(tx.commitLsn());
			assertThat(pending.changeId()).isEqualTo(SLOT + "/" + tx.commitLsn() + "/0");
			await().atMost(Duration.ofSeconds(5))
				.until(() -> log.text()
					.contains("Subscription 'forgetful' of slot " + SLOT + " has not acknowledged change "
							+ pending.changeId()));
			kept.get(0).acknowledge();
			assertThat(consumer.subscription("forgetful").oldestUnacknowledged()).isNull();
			await().until(() -> consumer.ackedLsn().equals(tx.endLsn()));
		}
	}

	@Test
	void handlerFailureWithASkippingErrorHandlerGoesOn() {
		this.server.commitInserts(1);
		FakeServer.Tx last = this.server.commitInserts(2);
		List<HandlerFailedException> skipped = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(
				builder().retryPolicy(retry(2)).subscribe(Subscription.onChange("poisoned", (change) -> {
					if (change.after().get("id").equals(1)) {
						throw new IllegalStateException("poison");
					}
				}).withErrorHandler(skipped::add)));
		await().until(() -> consumer.ackedLsn().equals(last.endLsn()));
		assertThat(skipped).singleElement().satisfies((failure) -> {
			assertThat(failure.change().after().get("id")).isEqualTo(1);
			assertThat(failure.getCause()).hasMessage("poison");
		});
		assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
	}

	@Test
	void handlerThrowingAnErrorIsAFailureOfThatCallNotASilentDeath() {
		FakeServer.Tx tx = this.server.commitInserts(1);
		AtomicInteger calls = new AtomicInteger();
		ReplicationConsumer consumer = start(builder().retryPolicy(retry(5)).changeHandler((change) -> {
			int call = calls.incrementAndGet();
			if (call == 1) {
				throw new AssertionError("assertion in a handler");
			}
			if (call == 2) {
				throw new NoClassDefFoundError("com/example/Missing");
			}
			if (call == 3) {
				recurse(0);
			}
		}));
		await().until(() -> consumer.ackedLsn().equals(tx.endLsn()));
		assertThat(calls.get()).isEqualTo(4);
		assertThat(this.recorder.retries).containsExactly(1, 2, 3);
		assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
	}

	@Test
	void handlerThatKeepsThrowingAnErrorStopsItsSubscriptionWithItAsCause() {
		this.server.commitInserts(1);
		ReplicationConsumer consumer = start(builder().retryPolicy(retry(2)).changeHandler((change) -> {
			throw new AssertionError("always");
		}));
		await().until(() -> consumer.subscription("changeHandler").state() == SubscriptionState.STOPPED);
		assertThat(consumer.subscription("changeHandler").cause()).isInstanceOf(HandlerFailedException.class)
			.hasCauseInstanceOf(AssertionError.class);
		assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
	}

	@Test
	void handlerReturningWithItsInterruptFlagSetDoesNotStopDelivery() {
		this.server.commitInserts(1);
		FakeServer.Tx second = this.server.commitInserts(2);
		List<Boolean> interruptedOnEntry = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(builder().changeHandler((change) -> {
			interruptedOnEntry.add(Thread.currentThread().isInterrupted());
			Thread.currentThread().interrupt();
		}));
		await().until(() -> consumer.ackedLsn().equals(second.endLsn()));
		FakeServer.Tx third = this.server.commitInserts(3);
		await().until(() -> consumer.ackedLsn().equals(third.endLsn()));
		assertThat(interruptedOnEntry).containsExactly(false, false, false);
		assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
	}

	@Test
	void outOfMemoryInTheReaderFailsTheConsumerInsteadOfLookingLikeANetworkFault() {
		FakeServer.Tx tx = this.server.commitInserts(1);
		ReplicationConsumer consumer = start(builder().streamFactory((request) -> {
			LogicalStream stream = this.server.open(request);
			return new ForwardingStream(stream) {

				@Override
				public java.nio.ByteBuffer read(Duration timeout) {
					throw new OutOfMemoryError("Java heap space (simulated)");
				}

			};
		}).changeHandler((change) -> {
		}));
		await().until(() -> consumer.state() == ConsumerState.FAILED);
		assertThat(this.recorder.failure).isInstanceOf(OutOfMemoryError.class);
		assertThat(this.server.opens.get()).isEqualTo(1);
		assertThat(tx.endLsn()).isNotNull();
	}

	@Test
	void connectionLossIsRetriedWithoutALimitWhileHandlerAttemptsStayLimited() {
		AtomicInteger opens = new AtomicInteger();
		// Eight reconnects on the handlers' back-off would take over a minute.
		RetryPolicy slowHandlerRetries = new RetryPolicy(Duration.ofSeconds(10), 2, Duration.ofSeconds(30), 2);
		ReplicationConsumer consumer = start(builder().retryPolicy(slowHandlerRetries).streamFactory((request) -> {
			if (opens.incrementAndGet() <= 8) {
				throw new ConnectionLostException("server down (simulated)", null);
			}
			return this.server.open(request);
		}).changeHandler((change) -> {
		}));
		FakeServer.Tx tx = this.server.commitInserts(1);
		await().atMost(Duration.ofSeconds(5)).until(() -> consumer.ackedLsn().equals(tx.endLsn()));
		assertThat(opens.get()).isEqualTo(9);
		assertThat(this.recorder.states).doesNotContain(ConsumerState.FAILED).endsWith(ConsumerState.RUNNING);
	}

	@Test
	void slowHandlersHoldDeliveryAtMaxUnacknowledgedWhileTheReaderKeepsSendingStatus() {
		for (int i = 0; i < 10; i++) {
			this.server.commitInserts(i);
		}
		List<Acknowledgment> acks = new CopyOnWriteArrayList<>();
		start(builder().maxUnacknowledged(3)
			.statusInterval(Duration.ofMillis(100))
			.subscribe(Subscription.onChange("deferred", (Change change, Acknowledgment ack) -> acks.add(ack))));
		await().until(() -> acks.size() == 3);
		FakeServer.Stream stream = this.server.current();
		int status = stream.statusUpdates.get();
		await().during(Duration.ofMillis(500)).until(() -> acks.size() == 3);
		assertThat(stream.statusUpdates.get()).isGreaterThan(status);
		acks.get(0).acknowledge();
		await().until(() -> acks.size() == 4);
	}

	@Test
	void memoryReadAheadIsBoundedInBytesNotOnlyInEvents() throws Exception {
		for (int i = 0; i < 30; i++) {
			this.server.commitInserts(i);
		}
		CountDownLatch release = new CountDownLatch(1);
		start(builder().readAhead(1000, 300).changeHandler((change) -> release.await()));
		await().until(() -> this.server.current() != null && this.server.current().pending() > 0);
		FakeServer.Stream stream = this.server.current();
		await().during(Duration.ofMillis(500)).until(() -> stream.pending() > 60);
		release.countDown();
		await().until(() -> stream.pending() == 0);
	}

	@Test
	void standbyWaitsWithoutUsingAttempts() {
		this.server.slotInUseOpens.set(5);
		FakeServer.Tx tx = this.server.commitInserts(1);
		ReplicationConsumer consumer = start(builder().retryPolicy(retry(1)).changeHandler((change) -> {
		}));
		await().until(() -> consumer.ackedLsn().equals(tx.endLsn()));
		assertThat(this.recorder.states).containsExactly(ConsumerState.STARTING, ConsumerState.STANDBY,
				ConsumerState.RUNNING);
	}

	@Test
	void identifiersAPublicationNameWithAQuoteIsRefusedByBuild() {
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> builder().publicationName("it's").changeHandler((change) -> {
			}).build())
			.withMessageContaining("single quote");
	}

	@Test
	void stopBeforeStartLeavesAConsumerThatCannotBeStarted() {
		ReplicationConsumer consumer = builder().changeHandler((change) -> {
		}).build();
		consumer.stop();
		assertThatIllegalStateException().isThrownBy(consumer::start).withMessageContaining("was stopped");
		assertThat(consumer.state()).isEqualTo(ConsumerState.STOPPED);
		assertThat(this.server.opens.get()).isZero();
	}

	@Test
	void stopFromInsideAHandlerReturnsAtOnceAndTheConsumerStops() throws Exception {
		FakeServer.Tx tx = this.server.commitInserts(1);
		CountDownLatch returned = new CountDownLatch(1);
		AtomicInteger calls = new AtomicInteger();
		ReplicationConsumer[] self = new ReplicationConsumer[1];
		self[0] = builder().stopTimeout(Duration.ofSeconds(30)).changeHandler((change) -> {
			calls.incrementAndGet();
			self[0].stop();
			returned.countDown();
		}).build();
		this.consumers.add(self[0]);
		self[0].start();
		assertThat(returned.await(5, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> self[0].state() == ConsumerState.STOPPED);
		assertThat(this.server.confirmed()).isEqualTo(tx.endLsn());
		assertThat(calls.get()).isEqualTo(1);
		assertThat(postlogThreads()).isEmpty();
	}

	@Test
	void stopLeavesNoThreadOfTheConsumerAlive() {
		this.server.commitInserts(1);
		ReplicationConsumer consumer = start(builder().subscribe(Subscription.onChange("lanes", (change) -> {
		}).withConcurrency(3)));
		await().until(() -> consumer.ackedLsn().isValid());
		assertThat(postlogThreads()).isNotEmpty();
		consumer.stop();
		assertThat(postlogThreads()).isEmpty();
	}

	private static List<String> postlogThreads() {
		List<String> names = new ArrayList<>();
		for (Thread thread : Thread.getAllStackTraces().keySet()) {
			if (thread.isAlive() && thread.getName().startsWith("postlog-") && thread.getName().contains(SLOT)) {
				names.add(thread.getName());
			}
		}
		return names;
	}

	private static int recurse(int depth) {
		return recurse(depth + 1) + 1;
	}

	private ReplicationConsumer.Builder builder() {
		return ReplicationConsumer.builder()
			.streamFactory(this.server)
			.slotName(SLOT)
			.slotLifecycle(SlotLifecycle.EXISTING)
			.publicationMode(PublicationMode.EXISTING)
			.retryPolicy(retry(3))
			.reconnectPolicy(new ReconnectPolicy(Duration.ofMillis(20), 2, Duration.ofMillis(100)))
			.stopTimeout(Duration.ofSeconds(2))
			.listener(this.recorder);
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
	 * Passes every call to another stream.
	 */
	private static class ForwardingStream implements LogicalStream {

		private final LogicalStream delegate;

		ForwardingStream(LogicalStream delegate) {
			this.delegate = delegate;
		}

		@Override
		public java.nio.@Nullable ByteBuffer read(Duration timeout) {
			return this.delegate.read(timeout);
		}

		@Override
		public Lsn lastReceiveLsn() {
			return this.delegate.lastReceiveLsn();
		}

		@Override
		public void acknowledge(Lsn lsn) {
			this.delegate.acknowledge(lsn);
		}

		@Override
		public void sendStatus() {
			this.delegate.sendStatus();
		}

		@Override
		public void abort() {
			this.delegate.abort();
		}

		@Override
		public void close() {
			this.delegate.close();
		}

	}

}
