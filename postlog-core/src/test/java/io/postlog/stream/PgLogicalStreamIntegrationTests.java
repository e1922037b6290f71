package io.postlog.stream;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.admin.SlotInUseException;
import io.postlog.admin.SlotNotFoundException;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.util.DriverInfo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

@Tag("matrix")
@PostgresTest
class PgLogicalStreamIntegrationTests {

	private static final Duration STATUS_INTERVAL = Duration.ofSeconds(1);

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void driverIsTheVersionThisRunExpects() throws Exception {
		String expected = System.getProperty("postlog.pgjdbc.version");
		Assumptions.assumeTrue(expected != null && !expected.isEmpty(), "postlog.pgjdbc.version is not set");
		// Reflection, because javac inlines the constant of the driver compiled against.
		Object running = DriverInfo.class.getField("DRIVER_VERSION").get(null);
		assertThat(running).isEqualTo(expected);
	}

	@Test
	void streamsAnInsertAsBeginRelationInsertCommit(PostgresDatabase database) {
		StreamFixture fixture = new StreamFixture(database, "tags").withSlot();
		try (LogicalStream stream = fixture.open(STATUS_INTERVAL)) {
			fixture.insert(42);
			List<byte[]> messages = StreamFixture.readTransaction(stream, WAIT);
			assertThat(StreamFixture.tags(messages)).isEqualTo("BRIC");
			assertThat(StreamFixture.insertedText(messages.get(2))).isEqualTo("42");
			assertThat(stream.lastReceiveLsn()).isGreaterThanOrEqualTo(StreamFixture.commitEndLsn(messages.get(3)));
		}
	}

	@Test
	void onlyAcknowledgeMovesTheConfirmedPosition(PostgresDatabase database) {
		StreamFixture fixture = new StreamFixture(database, "ack").withSlot();
		Lsn created = fixture.confirmedFlushLsn();
		Lsn end;
		try (LogicalStream stream = fixture.open(STATUS_INTERVAL)) {
			fixture.insert(1);
			List<byte[]> messages = StreamFixture.readTransaction(stream, WAIT);
			end = StreamFixture.commitEndLsn(messages.get(messages.size() - 1));
			long until = System.nanoTime() + STATUS_INTERVAL.multipliedBy(3).toNanos();
			while (System.nanoTime() < until) {
				// Nothing more of the table arrives. Before PostgreSQL 15 the server also
				// sends
				// transactions that changed nothing published (autovacuum's analyze, for
				// one):
				// a begin and a commit alone.
				ByteBuffer message = stream.read(Duration.ofMillis(200));
				if (message != null) {
					assertThat((char) message.get(0)).isIn('B', 'C');
				}
			}
			stream.sendStatus();
			assertThat(fixture.confirmedFlushLsn()).isEqualTo(created);
			stream.acknowledge(end);
			stream.acknowledge(created);
			Lsn acknowledged = end;
			// The server hears it from the owner's status; keepalives that ask for
			// nothing are not answered.
			await().atMost(WAIT).until(() -> {
				stream.sendStatus();
				stream.read(Duration.ofMillis(100));
				return fixture.confirmedFlushLsn().equals(acknowledged);
			});
		}
		assertThat(fixture.confirmedFlushLsn()).isEqualTo(end);
	}

	@Test
	void keepalivesThatAskForNoReplyAreNotAnsweredTheOwnersStatusReportsThem(PostgresDatabase database) {
		StreamFixture fixture = new StreamFixture(database, "quiet").withSlot();
		// No status falls due on its own in this test; the server's default
		// wal_sender_timeout asks for a reply only after 30 s of silence.
		try (LogicalStream stream = fixture.open(Duration.ofMinutes(1))) {
			StreamFixture.readNothing(stream, Duration.ofMillis(200));
			String writtenBefore = fixture.senderColumn("write_lsn");
			fixture.insert(1);
			List<byte[]> messages = StreamFixture.readTransaction(stream, WAIT);
			Lsn end = StreamFixture.commitEndLsn(messages.get(messages.size() - 1));
			// Waiting for more WAL while the client has reported nothing of what it was
			// sent, the walsender sends keepalives that ask for no reply.
			long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
			while (System.nanoTime() < until) {
				ByteBuffer message = stream.read(Duration.ofMillis(200));
				if (message != null) {
					assertThat((char) message.get(0)).isIn('B', 'C');
				}
			}
			assertThat(fixture.senderColumn("write_lsn")).isEqualTo(writtenBefore);
			stream.sendStatus();
			await().atMost(WAIT).until(() -> {
				stream.read(Duration.ofMillis(100));
				String written = fixture.senderColumn("write_lsn");
				return written != null && !Lsn.parse(written).isBefore(end);
			});
		}
	}

	@Test
	void restartResumesAfterTheAcknowledgedTransaction(PostgresDatabase database) {
		StreamFixture fixture = new StreamFixture(database, "resume").withSlot();
		try (LogicalStream stream = fixture.open(STATUS_INTERVAL)) {
			fixture.insert(1);
			fixture.insert(2);
			List<byte[]> first = StreamFixture.readTransaction(stream, WAIT);
			stream.acknowledge(StreamFixture.commitEndLsn(first.get(first.size() - 1)));
		}
		try (LogicalStream stream = fixture.reopen(STATUS_INTERVAL)) {
			List<byte[]> next = StreamFixture.readTransaction(stream, WAIT);
			assertThat(StreamFixture.insertedText(next.get(next.size() - 2))).isEqualTo("2");
		}
	}

	@Test
	void secondOpenOfAnActiveSlotIsSlotInUse(PostgresDatabase database) {
		StreamFixture fixture = new StreamFixture(database, "busy").withSlot();
		try (LogicalStream stream = fixture.open(STATUS_INTERVAL)) {
			StreamFixture.readNothing(stream, Duration.ofMillis(50));
			assertThatExceptionOfType(SlotInUseException.class).isThrownBy(() -> fixture.open(STATUS_INTERVAL))
				.satisfies((ex) -> {
					assertThat(ex.sqlState()).isEqualTo("55006");
					assertThat(ex.slotName()).isEqualTo(fixture.slot);
				});
		}
		await().atMost(WAIT).untilAsserted(() -> {
			try (LogicalStream again = fixture.open(STATUS_INTERVAL)) {
				StreamFixture.readNothing(again, Duration.ofMillis(10));
			}
		});
	}

	@Test
	void missingSlotIsSlotNotFound(PostgresDatabase database) {
		StreamFixture fixture = new StreamFixture(database, "missing");
		assertThatExceptionOfType(SlotNotFoundException.class).isThrownBy(() -> fixture.open(STATUS_INTERVAL))
			.satisfies((ex) -> assertThat(ex.sqlState()).isEqualTo("42704"));
	}

	@Test
	void temporarySlotLivesAsLongAsTheStream(PostgresDatabase database) {
		StreamFixture fixture = new StreamFixture(database, "temp");
		try (LogicalStream stream = fixture.factory.open(fixture.request(STATUS_INTERVAL, true))) {
			assertThat(fixture.slotColumn("temporary")).isEqualTo("true");
			assertThat(fixture.slotColumn("active")).isEqualTo("true");
			fixture.insert(7);
			List<byte[]> messages = StreamFixture.readTransaction(stream, WAIT);
			assertThat(StreamFixture.tags(messages)).isEqualTo("BRIC");
			assertThatExceptionOfType(SlotInUseException.class)
				.isThrownBy(() -> fixture.factory.open(fixture.request(STATUS_INTERVAL, true)));
		}
		await().atMost(WAIT).until(() -> fixture.slotColumn("slot_name") == null);
	}

	@Test
	void terminatedWalsenderMakesReadFail(PostgresDatabase database) {
		StreamFixture fixture = new StreamFixture(database, "killed").withSlot();
		try (LogicalStream stream = fixture.open(STATUS_INTERVAL)) {
			StreamFixture.readNothing(stream, Duration.ofMillis(50));
			database.execute("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '"
					+ fixture.slot + "'");
			long deadline = System.nanoTime() + WAIT.toNanos();
			PostlogException failure = null;
			while (failure == null && System.nanoTime() < deadline) {
				try {
					stream.read(Duration.ofMillis(100));
				}
				catch (PostlogException ex) {
					failure = ex;
				}
			}
			assertThat(failure).as("read failed after the walsender was terminated").isNotNull();
			assertThat(failure).hasMessageContaining(fixture.slot);
		}
	}

	@Test
	void closeIsIdempotentAndReadAfterCloseFails(PostgresDatabase database) {
		StreamFixture fixture = new StreamFixture(database, "closed").withSlot();
		LogicalStream stream = fixture.open(STATUS_INTERVAL);
		stream.close();
		stream.close();
		assertThatExceptionOfType(PostlogException.class).isThrownBy(() -> stream.read(Duration.ofMillis(10)));
		await().atMost(WAIT).until(() -> "false".equals(fixture.slotColumn("active")));
	}

	@Test
	void readReturnsNullAtTheTimeoutWhenNothingArrives(PostgresDatabase database) {
		StreamFixture fixture = new StreamFixture(database, "empty").withSlot();
		try (LogicalStream stream = fixture.open(STATUS_INTERVAL)) {
			long start = System.nanoTime();
			ByteBuffer payload = stream.read(Duration.ofMillis(300));
			long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
			assertThat(payload).isNull();
			assertThat(elapsedMillis).isBetween(250L, 2000L);
		}
	}

}
