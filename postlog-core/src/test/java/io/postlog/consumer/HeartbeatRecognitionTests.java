package io.postlog.consumer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.heartbeat.Heartbeat;
import io.postlog.heartbeat.HeartbeatMonitor;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.PgOutputWriter;
import io.postlog.pgoutput.TupleData;
import io.postlog.pgoutput.TupleValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Heartbeats coming back through the stream reach the heartbeat monitor and no
 * subscription, as logical messages (PostgreSQL 14+) and as rows of the heartbeat table
 * (before 14), on {@link FakeServer}. Without an admin connection the consumer has no
 * server version: a heartbeat table named on the builder means rows, none means messages.
 */
class HeartbeatRecognitionTests {

	private static final String SLOT = "beat_slot";

	private static final int HEARTBEAT_RELATION_ID = 16500;

	private static final TableId HEARTBEAT_TABLE = new TableId("public", "postlog_heartbeat");

	private final FakeServer server = new FakeServer();

	private final Monitor monitor = new Monitor();

	private final List<Object> delivered = new CopyOnWriteArrayList<>();

	private final List<Transaction> transactionsObserved = new CopyOnWriteArrayList<>();

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void heartbeatMessagesReachTheMonitorAndNoSubscriptionAndMessagesAreAskedForWithoutAMessageHandler() {
		ReplicationConsumer consumer = start(builder().changeHandler(this.delivered::add));
		await().until(() -> this.server.current() != null);
		assertThat(this.server.lastRequest.options()).containsEntry("messages", "true");
		this.server.commitInserts(1);
		Heartbeat beat = new Heartbeat(SLOT, "app1", 7, Instant.parse("2024-01-02T03:04:05.123Z"));
		this.server.sendRaw(PgOutputWriter.write(message(0x100000, Heartbeat.PREFIX, beat.content())));
		await().until(() -> consumer.ackedLsn().equals(Lsn.of(0x100000)));
		assertThat(this.monitor.received).containsExactly(beat);
		assertThat(this.delivered).singleElement().isInstanceOf(Change.class);
	}

	@Test
	void aMessageHandlerSeesOtherMessagesButNoHeartbeatEvenAnUnreadableOne() {
		start(builder().changeHandler(this.delivered::add).messageHandler(this.delivered::add));
		await().until(() -> this.server.current() != null);
		Heartbeat beat = new Heartbeat(SLOT, "app1", 1, Instant.parse("2024-01-02T03:04:05Z"));
		this.server.sendRaw(PgOutputWriter.write(message(0x2000, Heartbeat.PREFIX, beat.content())));
		this.server.sendRaw(PgOutputWriter.write(message(0x2010, Heartbeat.PREFIX, bytes("v9;something else"))));
		this.server.sendRaw(PgOutputWriter.write(message(0x2020, "audit", bytes("hello"))));
		await().until(() -> this.delivered.size() == 1);
		assertThat(this.delivered).singleElement()
			.satisfies((item) -> assertThat(((LogicalMessage) item).prefix()).isEqualTo("audit"));
		assertThat(this.monitor.received).containsExactly(beat);
	}

	@Test
	void heartbeatTableRowsReachTheMonitorAndNoSubscriptionAndTheirTransactionIsAcknowledgedUnseen() {
		ReplicationConsumer consumer = start(builder().heartbeatTable(HEARTBEAT_TABLE)
			.changeHandler(this.delivered::add)
			.transactionHandler(this.delivered::add));
		await().until(() -> this.server.current() != null);
		assertThat(this.server.lastRequest.options()).doesNotContainKey("messages");
		FakeServer.Tx beat = this.server.commit(List.of(heartbeatRelation(),
				new PgOutputMessage.Insert(null, HEARTBEAT_RELATION_ID, heartbeatRow(SLOT, "app1", 3))));
		await().until(() -> consumer.ackedLsn().equals(beat.endLsn()));
		FakeServer.Tx data = this.server.commitInserts(1, 2);
		await().until(() -> consumer.ackedLsn().equals(data.endLsn()));
		assertThat(this.monitor.received).singleElement().satisfies((heartbeat) -> {
			assertThat(heartbeat.sequence()).isEqualTo(3);
			assertThat(heartbeat.emittedAt()).isEqualTo(Instant.parse("2024-01-02T03:04:05.123Z"));
		});
		assertThat(this.delivered).hasSize(3);
		assertThat(this.delivered.subList(0, 2)).extracting((item) -> ((Change) item).table().name())
			.containsExactly("items", "items");
		assertThat(((Transaction) this.delivered.get(2)).commitLsn()).isEqualTo(data.commitLsn());
		assertThat(this.transactionsObserved).singleElement()
			.satisfies((transaction) -> assertThat(transaction.commitLsn()).isEqualTo(data.commitLsn()));
	}

	@Test
	void everyStreamStartIsReportedToTheMonitor() {
		start(builder().changeHandler(this.delivered::add));
		await().until(() -> this.monitor.streamStarts.size() == 1);
		this.server.dropConnection();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.monitor.streamStarts.size() == 2);
		assertThat(this.server.opens.get()).isEqualTo(2);
	}

	private ReplicationConsumer.Builder builder() {
		return ReplicationConsumer.builder()
			.streamFactory(this.server)
			.slotName(SLOT)
			.slotLifecycle(SlotLifecycle.EXISTING)
			.publicationMode(PublicationMode.EXISTING)
			.retryPolicy(new RetryPolicy(Duration.ofMillis(20), 2, Duration.ofMillis(100), 3))
			.heartbeatMonitor(this.monitor)
			.listener(new ConsumerListener() {

				@Override
				public void transactionDelivered(Transaction transaction, Duration handlerTime) {
					HeartbeatRecognitionTests.this.transactionsObserved.add(transaction);
				}

			});
	}

	private ReplicationConsumer start(ReplicationConsumer.Builder builder) {
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		consumer.start();
		return consumer;
	}

	private static PgOutputMessage.Message message(long lsn, String prefix, byte[] content) {
		return new PgOutputMessage.Message(null, false, Lsn.of(lsn), prefix, content);
	}

	private static PgOutputMessage.Relation heartbeatRelation() {
		return new PgOutputMessage.Relation(null, HEARTBEAT_RELATION_ID, "public", "postlog_heartbeat", 'd',
				List.of(new PgOutputMessage.Column(1, "slot_name", 25, -1),
						new PgOutputMessage.Column(0, "instance", 25, -1),
						new PgOutputMessage.Column(0, "sequence", 20, -1),
						new PgOutputMessage.Column(0, "emitted_at", 1184, -1)));
	}

	private static TupleData heartbeatRow(String slot, String instance, long sequence) {
		return new TupleData(List.of(new TupleValue.Text(bytes(slot)), new TupleValue.Text(bytes(instance)),
				new TupleValue.Text(bytes(Long.toString(sequence))),
				new TupleValue.Text(bytes("2024-01-02 03:04:05.123+00"))));
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static final class Monitor implements HeartbeatMonitor {

		final List<Heartbeat> received = new CopyOnWriteArrayList<>();

		final List<Instant> streamStarts = new CopyOnWriteArrayList<>();

		@Override
		public void emitted(Heartbeat heartbeat) {
		}

		@Override
		public void received(Heartbeat heartbeat, Instant receivedAt) {
			this.received.add(heartbeat);
		}

		@Override
		public void streamStarted(Instant at) {
			this.streamStarts.add(at);
		}

	}

}
