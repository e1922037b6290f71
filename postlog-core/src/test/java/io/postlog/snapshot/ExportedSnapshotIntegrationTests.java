package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotInUseException;
import io.postlog.admin.SlotInfo;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Slots created with an exported snapshot, on each server version: which spelling of the
 * replication command it accepts, what the snapshot sees, and how long it lives.
 */
@Tag("matrix")
@PostgresTest
class ExportedSnapshotIntegrationTests {

	@Test
	void snapshotSeesExactlyWhatCommittedBeforeTheConsistentPoint(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE seen (id int PRIMARY KEY)", "INSERT INTO seen VALUES (1)");
		try (ExportedSnapshot snapshot = ExportedSnapshot.create(database.connectReplication(), "seen_slot", true)) {
			database.execute("INSERT INTO seen VALUES (2)");
			assertThat(snapshot.snapshotName()).matches("[0-9A-F]{8}-[0-9A-F]{8}-[0-9]+");
			assertThat(snapshot.serverVersion()).isEqualTo(database.serverVersion());
			try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
				statement.execute("BEGIN ISOLATION LEVEL REPEATABLE READ");
				statement.execute("SET TRANSACTION SNAPSHOT '" + snapshot.snapshotName() + "'");
				assertThat(count(statement, "SELECT count(*) FROM seen")).isEqualTo(1);
				statement.execute("COMMIT");
			}
			SlotInfo slot = slot(database, "seen_slot");
			assertThat(slot.temporary()).isTrue();
			assertThat(slot.active()).isTrue();
			assertThat(slot.confirmedFlushLsn()).isEqualTo(snapshot.consistentPoint());
			assertThat(slot.restartLsn()).isLessThanOrEqualTo(snapshot.consistentPoint());
		}
		await().until(() -> !exists(database, "seen_slot"));
	}

	@Test
	void eachServerAcceptsTheSpellingsOfItsVersion(PostgresDatabase database) throws Exception {
		boolean optionList = database.serverVersion() >= 150000;
		assertThat(accepts(database, "CREATE_REPLICATION_SLOT spelling_old TEMPORARY LOGICAL pgoutput EXPORT_SNAPSHOT"))
			.as("EXPORT_SNAPSHOT keyword")
			.isTrue();
		assertThat(accepts(database,
				"CREATE_REPLICATION_SLOT spelling_new TEMPORARY LOGICAL pgoutput (SNAPSHOT 'export')"))
			.as("(SNAPSHOT 'export') option list")
			.isEqualTo(optionList);
		assertThat(ExportedSnapshot.createCommand(database.serverVersion(), "x", true))
			.endsWith(optionList ? "(SNAPSHOT 'export')" : "EXPORT_SNAPSHOT");
	}

	@Test
	void exportedSnapshotEndsWithTheReplicationConnectionsNextCommand(PostgresDatabase database) throws Exception {
		ExportedSnapshot snapshot = ExportedSnapshot.create(database.connectReplication(), "next_command_slot", true);
		try (Connection replication = snapshot.takeConnection()) {
			assertThat(snapshot.isOpen()).isFalse();
			try (Statement statement = replication.createStatement()) {
				statement.execute("SELECT 1");
			}
			try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
				statement.execute("BEGIN ISOLATION LEVEL REPEATABLE READ");
				assertThatExceptionOfType(SQLException.class)
					.isThrownBy(() -> statement.execute("SET TRANSACTION SNAPSHOT '" + snapshot.snapshotName() + "'"))
					// 42704 once the export file is gone, 22023 while it still names a
					// transaction that is no longer running.
					.satisfies((ex) -> assertThat(ex.getSQLState()).as(ex.getMessage()).isIn("42704", "22023"));
			}
		}
	}

	@Test
	void permanentSlotOutlivesItsConnectionAndIsNotHeldByIt(PostgresDatabase database) throws Exception {
		try (ExportedSnapshot snapshot = ExportedSnapshot.create(database.connectReplication(), "kept_slot", false)) {
			SlotInfo slot = slot(database, "kept_slot");
			assertThat(slot.temporary()).isFalse();
			// The walsender releases a permanent slot once it is created: only postlog's
			// own lock keeps other processes from it while the snapshot is read.
			assertThat(slot.active()).isFalse();
			assertThat(slot.confirmedFlushLsn()).isEqualTo(snapshot.consistentPoint());
		}
		assertThat(exists(database, "kept_slot")).isTrue();
		database.execute("SELECT pg_drop_replication_slot('kept_slot')");
	}

	@Test
	void slotOfAnExistingNameIsInUse(PostgresDatabase database) throws Exception {
		try (ExportedSnapshot first = ExportedSnapshot.create(database.connectReplication(), "twice_slot", true)) {
			Connection second = database.connectReplication();
			assertThatExceptionOfType(SlotInUseException.class)
				.isThrownBy(() -> ExportedSnapshot.create(second, "twice_slot", true));
			assertThat(second.isClosed()).isTrue();
		}
	}

	private static boolean accepts(PostgresDatabase database, String command) throws SQLException {
		try (Connection replication = database.connectReplication();
				Statement statement = replication.createStatement()) {
			statement.executeQuery(command).close();
			return true;
		}
		catch (SQLException ex) {
			assertThat(ex.getSQLState()).as(ex.getMessage()).isEqualTo("42601");
			return false;
		}
	}

	static SlotInfo slot(PostgresDatabase database, String name) throws SQLException {
		try (Connection connection = database.connect()) {
			return new ReplicationAdmin(connection).slot(name).orElseThrow();
		}
	}

	static boolean exists(PostgresDatabase database, String name) throws SQLException {
		try (Connection connection = database.connect()) {
			return new ReplicationAdmin(connection).slot(name).isPresent();
		}
	}

	static long count(Statement statement, String sql) throws SQLException {
		try (ResultSet row = statement.executeQuery(sql)) {
			row.next();
			return row.getLong(1);
		}
	}

}
