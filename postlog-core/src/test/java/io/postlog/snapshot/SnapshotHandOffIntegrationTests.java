package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.admin.SlotConflictException;
import io.postlog.admin.SlotInUseException;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.SlotLifecycle;
import io.postlog.admin.SlotNotFoundException;
import io.postlog.snapshot.SnapshotHandOff.Action;
import io.postlog.snapshot.SnapshotHandOff.Method;
import io.postlog.snapshot.StreamedChanges.Streamed;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The hand-off from a snapshot to the stream on a real server: a slot exists to be
 * streamed only once its snapshot is complete, and then streams exactly what committed
 * after the snapshot's consistent point.
 */
@Tag("matrix")
@PostgresTest
class SnapshotHandOffIntegrationTests {

	private static final TableId MARKERS = TableId.parse("postlog_snapshot");

	@Test
	void copiedTemporarySlotStreamsFromTheConsistentPoint(PostgresDatabase database) throws Exception {
		assumeThat(database.serverVersion()).isGreaterThanOrEqualTo(SnapshotHandOff.COPY_SLOT_VERSION);
		handOffStreamsWhatCommittedAfterTheSnapshot(database, "copied", null);
	}

	@Test
	void markedPermanentSlotStreamsFromTheConsistentPoint(PostgresDatabase database) throws Exception {
		handOffStreamsWhatCommittedAfterTheSnapshot(database, "marked", Method.MARKER_TABLE);
	}

	private void handOffStreamsWhatCommittedAfterTheSnapshot(PostgresDatabase database, String name,
			@Nullable Method method) throws Exception {
		String slot = name + "_slot";
		database.execute("CREATE TABLE " + name + " (id int PRIMARY KEY)",
				"CREATE PUBLICATION " + name + "_pub FOR TABLE " + name, "INSERT INTO " + name + " VALUES (1)");
		List<Change> snapshotRows = new ArrayList<>();
		ExportedSnapshot snapshot;
		try (SnapshotHandOff handOff = open(database, slot, SlotLifecycle.CREATE_IF_MISSING, MARKERS, method)) {
			assertThat(handOff.method()).isEqualTo((method != null) ? method : Method.COPY_TEMPORARY_SLOT);
			try (Connection admin = database.connect()) {
				assertThat(handOff.decide(admin).action()).isEqualTo(Action.SNAPSHOT);
				snapshot = handOff.exportSnapshot(admin);
			}
			database.execute("INSERT INTO " + name + " VALUES (2)");
			new SnapshotReader(SnapshotConnections.of(database.jdbcUrl(), database.username(), null),
					ValueDecoders.standard())
				.read(snapshot, List.of(TableId.parse(name)), SnapshotOptions.defaults(), snapshotRows::add);
			if (method == null) {
				assertThat(ExportedSnapshotIntegrationTests.exists(database, slot)).isFalse();
				SlotInfo temporary = ExportedSnapshotIntegrationTests.slot(database, snapshot.slotName());
				assertThat(temporary.temporary()).isTrue();
				assertThat(temporary.active()).isTrue();
			}
			try (Connection admin = database.connect()) {
				SlotInfo handedOver = handOff.complete(admin);
				assertThat(handedOver.slotName()).isEqualTo(slot);
				assertThat(handedOver.temporary()).isFalse();
				assertThat(handedOver.confirmedFlushLsn()).isEqualTo(snapshot.consistentPoint());
			}
			database.execute("INSERT INTO " + name + " VALUES (3)");
		}
		await().until(() -> !ExportedSnapshotIntegrationTests.exists(database, snapshot.slotName())
				|| snapshot.slotName().equals(slot));
		assertThat(snapshotRows).extracting((change) -> change.after().get("id")).containsExactly(1);
		assertThat(snapshotRows).allSatisfy((change) -> {
			assertThat(change.operation()).isEqualTo(Operation.SNAPSHOT);
			assertThat(change.commitLsn()).isEqualTo(snapshot.consistentPoint());
			assertThat(change.id()).startsWith(slot + "/" + snapshot.consistentPoint() + "/snapshot/");
		});
		try (StreamedChanges stream = StreamedChanges.open(database, slot, name + "_pub", false,
				ValueDecoders.standard())) {
			List<Streamed> streamed = stream.readUntil((change) -> Integer.valueOf(3).equals(change.after().get("id")),
					Duration.ofSeconds(30));
			assertThat(streamed).extracting((change) -> change.after().get("id")).containsExactly(2, 3);
			assertThat(streamed).allSatisfy(
					(change) -> assertThat(change.commitLsn()).isGreaterThanOrEqualTo(snapshot.consistentPoint()));
		}
		try (SnapshotHandOff again = open(database, slot, SlotLifecycle.CREATE_IF_MISSING, MARKERS, method);
				Connection admin = database.connect()) {
			assertThat(again.decide(admin).action()).isEqualTo(Action.STREAM);
		}
	}

	@Test
	void snapshotEndedBeforeItsHandOffLeavesNoSlotToStream(PostgresDatabase database) throws Exception {
		assumeThat(database.serverVersion()).isGreaterThanOrEqualTo(SnapshotHandOff.COPY_SLOT_VERSION);
		String snapshotSlot;
		try (SnapshotHandOff handOff = open(database, "ended_slot", SlotLifecycle.CREATE_IF_MISSING, MARKERS);
				Connection admin = database.connect()) {
			handOff.decide(admin);
			snapshotSlot = handOff.exportSnapshot(admin).slotName();
			assertThat(snapshotSlot).isEqualTo("ended_slot_snapshot");
		}
		await().until(() -> !ExportedSnapshotIntegrationTests.exists(database, snapshotSlot));
		assertThat(ExportedSnapshotIntegrationTests.exists(database, "ended_slot")).isFalse();
		try (SnapshotHandOff again = open(database, "ended_slot", SlotLifecycle.CREATE_IF_MISSING, MARKERS);
				Connection admin = database.connect()) {
			assertThat(again.decide(admin).action()).isEqualTo(Action.SNAPSHOT);
		}
	}

	@Test
	void handOffAfterTheSnapshotsConnectionEndedIsRefused(PostgresDatabase database) throws Exception {
		assumeThat(database.serverVersion()).isGreaterThanOrEqualTo(SnapshotHandOff.COPY_SLOT_VERSION);
		try (SnapshotHandOff handOff = open(database, "lost_slot", SlotLifecycle.CREATE_IF_MISSING, MARKERS);
				Connection admin = database.connect()) {
			handOff.decide(admin);
			ExportedSnapshot snapshot = handOff.exportSnapshot(admin);
			database.execute("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '"
					+ snapshot.slotName() + "'");
			await().until(() -> !ExportedSnapshotIntegrationTests.exists(database, snapshot.slotName()));
			assertThatExceptionOfType(SnapshotException.class).isThrownBy(() -> handOff.complete(admin))
				.withMessageContaining("must be taken again");
		}
		assertThat(ExportedSnapshotIntegrationTests.exists(database, "lost_slot")).isFalse();
	}

	@Test
	void interruptedMarkedSnapshotIsDroppedAndTakenAgain(PostgresDatabase database) throws Exception {
		Method method = Method.MARKER_TABLE;
		try (SnapshotHandOff handOff = open(database, "redo_slot", SlotLifecycle.CREATE_IF_MISSING, MARKERS, method);
				Connection admin = database.connect()) {
			handOff.decide(admin);
			handOff.exportSnapshot(admin);
		}
		assertThat(ExportedSnapshotIntegrationTests.exists(database, "redo_slot")).as("slot of the partial snapshot")
			.isTrue();
		assertThat(marker(database, "redo_slot")).isEqualTo("started");
		try (SnapshotHandOff again = open(database, "redo_slot", SlotLifecycle.CREATE_IF_MISSING, MARKERS, method);
				Connection admin = database.connect()) {
			SnapshotHandOff.Decision decision = again.decide(admin);
			assertThat(decision.action()).isEqualTo(Action.SNAPSHOT);
			assertThat(decision.reason()).contains("interrupted");
			assertThat(ExportedSnapshotIntegrationTests.exists(database, "redo_slot")).isFalse();
			ExportedSnapshot snapshot = again.exportSnapshot(admin);
			assertThat(marker(database, "redo_slot")).isEqualTo("started");
			again.complete(admin);
			assertThat(marker(database, "redo_slot")).isEqualTo("complete");
			assertThat(ExportedSnapshotIntegrationTests.slot(database, "redo_slot").confirmedFlushLsn())
				.isEqualTo(snapshot.consistentPoint());
		}
		try (SnapshotHandOff third = open(database, "redo_slot", SlotLifecycle.CREATE_IF_MISSING, MARKERS, method);
				Connection admin = database.connect()) {
			assertThat(third.decide(admin).action()).isEqualTo(Action.STREAM);
		}
		database.execute("SELECT pg_drop_replication_slot('redo_slot')");
	}

	@Test
	void existingLifecycleIsRefusedOnASlotThatHasAPositionAndMissingSlotIsNotFound(PostgresDatabase database)
			throws Exception {
		database.execute("SELECT pg_create_logical_replication_slot('positioned_slot', 'pgoutput')");
		try (SnapshotHandOff handOff = open(database, "positioned_slot", SlotLifecycle.EXISTING, MARKERS);
				Connection admin = database.connect()) {
			assertThatExceptionOfType(SnapshotRefusedException.class).isThrownBy(() -> handOff.decide(admin))
				.withMessageContaining("exists already")
				.withMessageContaining("create-if-missing");
		}
		try (SnapshotHandOff handOff = open(database, "absent_slot", SlotLifecycle.EXISTING, MARKERS);
				Connection admin = database.connect()) {
			assertThatExceptionOfType(SlotNotFoundException.class).isThrownBy(() -> handOff.decide(admin));
		}
		assertThat(ExportedSnapshotIntegrationTests.exists(database, "positioned_slot")).isTrue();
		database.execute("SELECT pg_drop_replication_slot('positioned_slot')");
	}

	@Test
	void temporaryLifecycleIsRefusedWhereAPermanentSlotIs(PostgresDatabase database) throws Exception {
		database.execute("SELECT pg_create_logical_replication_slot('permanent_slot', 'pgoutput')");
		try (SnapshotHandOff handOff = open(database, "permanent_slot", SlotLifecycle.TEMPORARY, MARKERS);
				Connection admin = database.connect()) {
			assertThatExceptionOfType(SlotConflictException.class).isThrownBy(() -> handOff.decide(admin));
		}
		database.execute("SELECT pg_drop_replication_slot('permanent_slot')");
	}

	@Test
	void secondProcessCannotSnapshotTheSameSlotAtOnce(PostgresDatabase database) throws Exception {
		try (SnapshotHandOff first = open(database, "locked_slot", SlotLifecycle.CREATE_IF_MISSING, MARKERS)) {
			Connection second = database.connectReplication();
			assertThatExceptionOfType(SlotInUseException.class).isThrownBy(
					() -> SnapshotHandOff.open(second, "locked_slot", SlotLifecycle.CREATE_IF_MISSING, MARKERS));
			assertThat(second.isClosed()).isTrue();
			try (SnapshotHandOff other = open(database, "other_slot", SlotLifecycle.CREATE_IF_MISSING, MARKERS)) {
				assertThat(other.method()).isNotNull();
			}
		}
		try (SnapshotHandOff third = open(database, "locked_slot", SlotLifecycle.CREATE_IF_MISSING, MARKERS)) {
			assertThat(third.method()).isNotNull();
		}
	}

	@Test
	void temporarySlotIsStreamedOnTheSnapshotsOwnConnection(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE temp_rows (id int PRIMARY KEY)",
				"CREATE PUBLICATION temp_pub FOR TABLE temp_rows", "INSERT INTO temp_rows VALUES (1)");
		List<Change> snapshotRows = new ArrayList<>();
		try (SnapshotHandOff handOff = open(database, "temp_slot", SlotLifecycle.TEMPORARY, MARKERS);
				Connection admin = database.connect()) {
			assertThat(handOff.method()).isEqualTo(Method.TEMPORARY_SLOT);
			assertThat(handOff.decide(admin).action()).isEqualTo(Action.SNAPSHOT);
			ExportedSnapshot snapshot = handOff.exportSnapshot(admin);
			assertThat(snapshot.slotName()).isEqualTo("temp_slot");
			database.execute("INSERT INTO temp_rows VALUES (2)");
			new SnapshotReader(SnapshotConnections.of(database.jdbcUrl(), database.username(), null),
					ValueDecoders.standard())
				.read(snapshot, List.of(TableId.parse("temp_rows")), SnapshotOptions.defaults(), snapshotRows::add);
			handOff.complete(admin);
			try (StreamedChanges stream = StreamedChanges.open(snapshot.takeConnection(), "temp_slot", "temp_pub",
					false, ValueDecoders.standard())) {
				assertThat(stream.readUntil((change) -> true, Duration.ofSeconds(30)))
					.extracting((change) -> change.after().get("id"))
					.containsExactly(2);
			}
		}
		assertThat(snapshotRows).extracting((change) -> change.after().get("id")).containsExactly(1);
		await().until(() -> !ExportedSnapshotIntegrationTests.exists(database, "temp_slot"));
	}

	/**
	 * Opens a hand-off, waiting while the lock is still held: a closed connection's
	 * backend releases it a moment later, and a restarting consumer waits too.
	 */
	private static SnapshotHandOff open(PostgresDatabase database, String slot, SlotLifecycle lifecycle,
			TableId markers) {
		return open(database, slot, lifecycle, markers, null);
	}

	private static SnapshotHandOff open(PostgresDatabase database, String slot, SlotLifecycle lifecycle,
			TableId markers, @Nullable Method method) {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (true) {
			try {
				return SnapshotHandOff.open(database.connectReplication(), slot, lifecycle, markers, method);
			}
			catch (SlotInUseException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				sleep();
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}
	}

	private static void sleep() {
		try {
			Thread.sleep(50);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static String marker(PostgresDatabase database, String slot) throws SQLException {
		try (Connection connection = database.connect()) {
			return new SnapshotMarkers(connection, MARKERS).state(slot).orElse("none");
		}
	}

}
