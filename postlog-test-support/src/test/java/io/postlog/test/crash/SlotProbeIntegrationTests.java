package io.postlog.test.crash;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link SlotProbe} on a real slot: it reads the positions the server shows, sees who
 * streams the slot, and waits for it to go inactive and to confirm a position (for as
 * long as it confirms more).
 */
@PostgresTest
class SlotProbeIntegrationTests {

	@Test
	void readsPositionsAndWaitsForTheSlotToConfirm(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE probed (k int)",
				"SELECT pg_create_logical_replication_slot('probed_slot', 'test_decoding')");
		SlotProbe probe = new SlotProbe(database, "probed_slot");
		assertThat(probe.exists()).isTrue();
		assertThat(new SlotProbe(database, "no_such_slot").exists()).isFalse();
		assertThat(new SlotProbe(database, "no_such_slot").confirmedFlushLsn()).isZero();
		long created = probe.confirmedFlushLsn();
		assertThat(created).isPositive();
		assertThat(probe.restartLsn()).isPositive().isLessThanOrEqualTo(created);
		assertThat(probe.activePid()).isNull();
		database.execute("INSERT INTO probed VALUES (1)");
		long end = SlotProbe.currentLsn(database);
		assertThat(end).isGreaterThan(created);
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> probe.awaitConfirmed(end, Duration.ofMillis(300)))
			.withMessageContaining("probed_slot confirmed " + SlotProbe.format(created));
		database.execute("SELECT count(*) FROM pg_logical_slot_get_changes('probed_slot', NULL, NULL)");
		probe.awaitConfirmed(end, Duration.ofSeconds(10));
		assertThat(SlotProbe.parse(SlotProbe.format(end))).isEqualTo(end);
	}

	@Test
	void waitsForAsLongAsTheSlotConfirmsMore(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE stepped (k int)",
				"SELECT pg_create_logical_replication_slot('stepped_slot', 'test_decoding')");
		SlotProbe probe = new SlotProbe(database, "stepped_slot");
		List<Long> steps = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			database.execute("INSERT INTO stepped VALUES (" + i + ")");
			steps.add(SlotProbe.currentLsn(database));
		}
		long end = steps.get(steps.size() - 1);
		// The slot moves a step every 250 ms: 3 s in all, longer than the stall allowed.
		AtomicReference<Exception> failed = new AtomicReference<>();
		Thread advancer = new Thread(() -> {
			try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
				for (long step : steps) {
					Thread.sleep(250);
					statement.execute("SELECT pg_replication_slot_advance('stepped_slot', '" + SlotProbe.format(step)
							+ "'::pg_lsn)");
				}
			}
			catch (Exception ex) {
				failed.set(ex);
			}
		});
		long started = System.nanoTime();
		advancer.start();
		try {
			probe.awaitConfirmed(end, Duration.ofSeconds(2));
		}
		finally {
			advancer.join();
		}
		assertThat(failed.get()).as("advancing the slot").isNull();
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(Duration.ofSeconds(2));
		assertThat(probe.confirmedFlushLsn()).isGreaterThanOrEqualTo(end);
	}

	@Test
	void seesTheStreamingProcessAndWaitsUntilItIsGone(PostgresDatabase database) throws Exception {
		database.execute("SELECT pg_create_logical_replication_slot('streamed_slot', 'test_decoding')");
		SlotProbe probe = new SlotProbe(database, "streamed_slot");
		try (Connection replication = database.connectReplication()) {
			PGReplicationStream stream = replication.unwrap(PGConnection.class)
				.getReplicationAPI()
				.replicationStream()
				.logical()
				.withSlotName("streamed_slot")
				.start();
			assertThat(stream.isClosed()).isFalse();
			assertThat(probe.activePid()).isNotNull();
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> probe.awaitInactive(Duration.ofMillis(300)))
				.withMessageContaining("still active");
		}
		probe.awaitInactive(Duration.ofSeconds(30));
		assertThat(probe.activePid()).isNull();
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			statement.execute("SELECT pg_drop_replication_slot('streamed_slot')");
		}
	}

}
