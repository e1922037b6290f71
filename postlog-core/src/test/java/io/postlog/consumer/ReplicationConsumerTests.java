package io.postlog.consumer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.spill.SpillDirectoryException;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.PgOutputWriter;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class ReplicationConsumerTests {

	private static final String SLOT = "test_slot";

	private final FakeServer server = new FakeServer();

	private final List<Change> changes = new CopyOnWriteArrayList<>();

	private final Recorder recorder = new Recorder();

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void deliversChangesInCommitOrderWithTheirIndexAndId() {
		FakeServer.Tx first = this.server.commitInserts(1, 2, 3);
		FakeServer.Tx second = this.server.commitInserts(4);
		start(builder().changeHandler(this.changes::add));
		await().until(() -> this.changes.size() == 4);
		assertThat(this.changes).extracting((change) -> change.after().get("id")).containsExactly(1, 2, 3, 4);
		assertThat(this.changes).extracting(Change::index).containsExactly(0, 1, 2, 0);
		assertThat(this.changes.get(2).id()).isEqualTo(Change.id(SLOT, first.commitLsn(), 2));
		assertThat(this.changes.get(3).commitLsn()).isEqualTo(second.commitLsn());
		assertThat(this.changes.get(0).table()).isEqualTo(new TableId("public", "items"));
		await().until(() -> this.server.current().acknowledged.equals(second.endLsn()));
		assertThat(this.server.lastRequest.options()).containsEntry("proto_version", "1")
			.containsEntry("publication_names", "\"postlog\"");
	}

	@Test
	void acknowledgesOnlyAfterTheHandlerReturned() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch entered = new CountDownLatch(1);
		FakeServer.Tx tx = this.server.commitInserts(1);
		ReplicationConsumer consumer = start(builder().changeHandler((change) -> {
			entered.countDown();
			release.await();
		}).statusInterval(Duration.ofMillis(50)));
		assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
		Thread.sleep(300);
		assertThat(consumer.ackedLsn()).isEqualTo(Lsn.INVALID);
		assertThat(this.server.current().acknowledged).isEqualTo(Lsn.INVALID);
		release.countDown();
		await().until(() -> consumer.ackedLsn().equals(tx.endLsn()));
		await().until(() -> this.server.current().acknowledged.equals(tx.endLsn()));
	}

	@Test
	void emptyTransactionIsAcknowledgedWithoutCallingTheTransactionHandler() {
		List<Transaction> transactions = new CopyOnWriteArrayList<>();
		FakeServer.Tx empty = this.server.commit(List.of());
		ReplicationConsumer consumer = start(builder().transactionHandler(transactions::add));
		await().until(() -> consumer.ackedLsn().equals(empty.endLsn()));
		FakeServer.Tx full = this.server.commitInserts(5, 6);
		await().until(() -> consumer.ackedLsn().equals(full.endLsn()));
		assertThat(transactions).hasSize(1);
		assertThat(transactions.get(0).changes()).extracting((change) -> change.after().get("id"))
			.containsExactly(5, 6);
		assertThat(transactions.get(0).endLsn()).isEqualTo(full.endLsn());
	}

	@Test
	void idleConsumerAcknowledgesTheKeepalivePosition() {
		FakeServer.Tx tx = this.server.commitInserts(1);
		ReplicationConsumer consumer = start(builder().changeHandler(this.changes::add));
		await().until(() -> consumer.ackedLsn().equals(tx.endLsn()));
		Lsn keepalive = Lsn.of(tx.endLsn().value() + 64 * 1024 * 1024);
		this.server.keepalive(keepalive);
		await().until(() -> consumer.ackedLsn().equals(keepalive));
		await().until(() -> this.server.current().acknowledged.equals(keepalive));
		assertThat(this.recorder.acknowledged).contains(tx.endLsn(), keepalive);
	}

	@Test
	void failedHandlerIsRetriedWithBackOffAndThenSucceeds() {
		FakeServer.Tx first = this.server.commitInserts(1);
		FakeServer.Tx failing = this.server.commitInserts(2, 3);
		AtomicInteger failuresLeft = new AtomicInteger(2);
		ReplicationConsumer consumer = start(builder().retryPolicy(retry(5)).changeHandler((change) -> {
			if (change.after().get("id").equals(3) && failuresLeft.getAndDecrement() > 0) {
				throw new IllegalStateException("boom");
			}
			this.changes.add(change);
		}));
		await().until(() -> consumer.ackedLsn().equals(failing.endLsn()));
		// Only the failing change is called again, in place: change 2, which precedes it
		// in its transaction, is not delivered twice, and the stream stays open.
		assertThat(this.changes).extracting((change) -> change.after().get("id")).containsExactly(1, 2, 3);
		assertThat(this.recorder.retries).containsExactly(1, 2);
		assertThat(this.recorder.states).containsSubsequence(ConsumerState.RUNNING, ConsumerState.RETRYING,
				ConsumerState.RUNNING);
		assertThat(this.server.opens.get()).isEqualTo(1);
		assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
		assertThat(first.endLsn()).isLessThan(failing.endLsn());
	}

	@Test
	void handlerThatKeepsFailingStopsItsSubscriptionAndHoldsTheSlotAtTheFailedTransaction() {
		this.server.commitInserts(1);
		FakeServer.Tx failed = this.server.commitInserts(2);
		this.server.commitInserts(3);
		AtomicInteger calls = new AtomicInteger();
		List<Object> after = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(builder().retryPolicy(retry(3)).changeHandler((change) -> {
			if (change.after().get("id").equals(2)) {
				calls.incrementAndGet();
				throw new IllegalStateException("boom");
			}
			after.add(change.after().get("id"));
		}));
		await().until(() -> consumer.subscription("changeHandler").state() == SubscriptionState.STOPPED);
		assertThat(calls.get()).isEqualTo(3);
		await().until(() -> this.server.confirmed().equals(failed.commitLsn()));
		assertThat(consumer.ackedLsn()).isEqualTo(failed.commitLsn());
		assertThat(after).containsExactly(1);
		assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
		assertThat(consumer.subscription("changeHandler").cause()).isInstanceOf(HandlerFailedException.class)
			.hasMessageContaining("public.items")
			.hasMessageContaining("change 0");
	}

	@Test
	void transactionLargerThanTheMaximumFailsTheConsumer() {
		this.server.commitInserts(1, 2, 3, 4);
		ReplicationConsumer consumer = start(builder().maxTransactionChanges(3).transactionHandler((tx) -> {
		}));
		await().until(() -> consumer.state() == ConsumerState.FAILED);
		assertThat(this.recorder.failure).isInstanceOf(ReplicationConsumerException.class)
			.hasMessageContaining("more than 3 changes");
		assertThat(this.server.opens.get()).isEqualTo(1);
	}

	@Test
	void slotInUseWaitsInStandbyWithoutUsingAttemptsThenRuns() {
		this.server.slotInUseOpens.set(4);
		FakeServer.Tx tx = this.server.commitInserts(1);
		ReplicationConsumer consumer = start(builder().retryPolicy(retry(1)).changeHandler(this.changes::add));
		await().until(() -> consumer.ackedLsn().equals(tx.endLsn()));
		assertThat(this.recorder.states).containsExactly(ConsumerState.STARTING, ConsumerState.STANDBY,
				ConsumerState.RUNNING);
		assertThat(this.server.opens.get()).isEqualTo(5);
	}

	@Test
	void readerKeepsSendingStatusWhileDeliveryIsBlockedAndTheQueueIsFull() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		for (int i = 0; i < 20; i++) {
			this.server.commitInserts(i);
		}
		ReplicationConsumer consumer = start(builder().readAhead(2, 1024 * 1024)
			.statusInterval(Duration.ofMillis(100))
			.changeHandler((change) -> release.await()));
		await().until(() -> this.server.current() != null && this.server.current().pending() > 0);
		FakeServer.Stream stream = this.server.current();
		Thread.sleep(300);
		int pending = stream.pending();
		int status = stream.statusUpdates.get();
		// The reader must not read ahead for a whole second while the queue stays full.
		await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> stream.pending() == pending);
		assertThat(pending).as("messages left unread").isPositive();
		assertThat(stream.statusUpdates.get()).as("status updates while blocked").isGreaterThanOrEqualTo(status + 5);
		release.countDown();
		await().until(() -> stream.pending() == 0 && consumer.ackedLsn().isValid());
	}

	@Test
	void stopFinishesTheTransactionInDeliveryAndAcknowledgesIt() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		FakeServer.Tx tx = this.server.commitInserts(1, 2, 3);
		this.server.commitInserts(4);
		ReplicationConsumer consumer = start(builder().changeHandler((change) -> {
			entered.countDown();
			release.await();
			this.changes.add(change);
		}));
		assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
		Thread stopper = new Thread(consumer::stop);
		stopper.start();
		Thread.sleep(200);
		release.countDown();
		stopper.join(10_000);
		assertThat(stopper.isAlive()).isFalse();
		assertThat(this.changes).extracting((change) -> change.after().get("id")).containsExactly(1, 2, 3);
		assertThat(this.server.confirmed()).isEqualTo(tx.endLsn());
		assertThat(this.server.current().closed).isTrue();
		assertThat(consumer.state()).isEqualTo(ConsumerState.STOPPED);
		consumer.stop();
		assertThat(this.recorder.states).endsWith(ConsumerState.STOPPED).containsOnlyOnce(ConsumerState.STOPPED);
	}

	@Test
	void streamMessageOnProtocolVersionOneFailsWithAClearError() {
		ReplicationConsumer consumer = start(builder().retryPolicy(retry(5)).changeHandler(this.changes::add));
		await().until(() -> this.server.current() != null);
		this.server.sendRaw(PgOutputWriter.write(new PgOutputMessage.StreamStart(900, true)));
		await().until(() -> consumer.state() == ConsumerState.FAILED);
		assertThat(this.recorder.failure).isInstanceOf(ReplicationConsumerException.class)
			.hasMessageContaining("StreamStart")
			.hasMessageContaining("protocol version 1");
		assertThat(this.server.opens.get()).isEqualTo(1);
	}

	@Test
	void lostConnectionReconnectsAndResumesFromTheConfirmedPosition() {
		FakeServer.Tx first = this.server.commitInserts(1);
		ReplicationConsumer consumer = start(builder().retryPolicy(retry(3)).changeHandler(this.changes::add));
		await()
			.until(() -> this.server.confirmed().equals(first.endLsn()) || consumer.ackedLsn().equals(first.endLsn()));
		this.server.dropConnection();
		await().until(() -> this.server.opens.get() == 2 && consumer.state() == ConsumerState.RUNNING);
		FakeServer.Tx second = this.server.commitInserts(2);
		await().until(() -> consumer.ackedLsn().equals(second.endLsn()));
		assertThat(this.changes).extracting((change) -> change.after().get("id")).startsWith(1).endsWith(2);
		assertThat(this.recorder.states).contains(ConsumerState.RETRYING);
	}

	@Test
	void transactionsTruncatesAndMessagesArriveInStreamOrder() {
		List<Object> seen = new CopyOnWriteArrayList<>();
		this.server.commit(List.of(new PgOutputMessage.Insert(null, FakeServer.RELATION_ID, FakeServer.row(1, "a")),
				new PgOutputMessage.Message(null, true, Lsn.of(0x1010), "audit",
						"hello".getBytes(StandardCharsets.UTF_8)),
				new PgOutputMessage.Update(null, FakeServer.RELATION_ID, null, FakeServer.row(1, "a"),
						FakeServer.row(1, "b")),
				new PgOutputMessage.Delete(null, FakeServer.RELATION_ID, FakeServer.row(1, "b"), null),
				new PgOutputMessage.Truncate(null, 0, List.of(FakeServer.RELATION_ID))));
		start(builder().changeHandler(seen::add).messageHandler(seen::add).transactionHandler(seen::add));
		await().until(() -> seen.size() == 6);
		assertThat(seen.get(0)).isInstanceOf(Change.class);
		assertThat(seen.get(1)).isInstanceOf(LogicalMessage.class);
		assertThat(((LogicalMessage) seen.get(1)).prefix()).isEqualTo("audit");
		assertThat(seen.subList(2, 5)).extracting((item) -> ((Change) item).operation())
			.containsExactly(Operation.UPDATE, Operation.DELETE, Operation.TRUNCATE);
		Change update = (Change) seen.get(2);
		assertThat(update.before().get("note")).isEqualTo("a");
		assertThat(update.after().get("note")).isEqualTo("b");
		Change truncate = (Change) seen.get(4);
		assertThat(truncate.before()).isNull();
		assertThat(truncate.after()).isNull();
		assertThat(truncate.index()).isEqualTo(3);
		assertThat(((Transaction) seen.get(5)).changes()).hasSize(4);
	}

	@Test
	void buildRefusesAnInvalidSlotName() {
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> builder().slotName("Bad-Slot").changeHandler(this.changes::add).build())
			.withMessageContaining("Bad-Slot");
	}

	@Test
	void buildRefusesAConsumerWithoutHandlerOrConnection() {
		assertThatExceptionOfType(ReplicationConsumerException.class).isThrownBy(() -> builder().build())
			.withMessageContaining("change, transaction or message handler");
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> ReplicationConsumer.builder().changeHandler(this.changes::add).build())
			.withMessageContaining("jdbcUrl");
	}

	@Test
	void unusableSpillDirectoryFailsStartBeforeAnythingIsSetUp(@TempDir Path directory) throws Exception {
		Path file = Files.writeString(directory.resolve("spill"), "not a directory");
		ReplicationConsumer consumer = builder().streaming(1024, file, 1 << 20)
			.changeHandler(this.changes::add)
			.build();
		this.consumers.add(consumer);
		assertThatExceptionOfType(SpillDirectoryException.class).isThrownBy(consumer::start)
			.withMessage("Spill directory " + file + " cannot be used: it exists and is not a directory");
		assertThat(consumer.state()).isEqualTo(ConsumerState.FAILED);
	}

	private ReplicationConsumer.Builder builder() {
		return ReplicationConsumer.builder()
			.streamFactory(this.server)
			.slotName(SLOT)
			.slotLifecycle(SlotLifecycle.EXISTING)
			.publicationMode(PublicationMode.EXISTING)
			.retryPolicy(retry(3))
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

	static final class Recorder implements ConsumerListener {

		final List<ConsumerState> states = new CopyOnWriteArrayList<>();

		final List<Integer> retries = new CopyOnWriteArrayList<>();

		final List<Lsn> acknowledged = new CopyOnWriteArrayList<>();

		volatile @Nullable Throwable failure;

		@Override
		public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
			this.states.add(current);
			if (current == ConsumerState.FAILED) {
				this.failure = cause;
			}
		}

		@Override
		public void retrying(int attempt, Duration backOff, Throwable cause) {
			this.retries.add(attempt);
		}

		@Override
		public void acknowledged(Lsn lsn) {
			this.acknowledged.add(lsn);
		}

	}

}
