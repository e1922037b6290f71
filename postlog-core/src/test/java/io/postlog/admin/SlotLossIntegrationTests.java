package io.postlog.admin;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A slot driven past {@code max_slot_wal_keep_size} is invalidated by the server and
 * found lost; a missing slot is lost only where it should exist.
 */
@Tag("matrix")
@PostgresTest
class SlotLossIntegrationTests {

	private static final long MB = 1024 * 1024;

	@Test
	void aSlotHeldPastMaxSlotWalKeepSizeIsInvalidatedAndFoundLost(PostgresDatabase shared) throws Exception {
		assumeTrue(shared.serverVersion() >= 130000, "max_slot_wal_keep_size needs PostgreSQL 13");
		try (EmbeddedPostgresServer server = EmbeddedPostgresServer.builder()
			.setting("max_slot_wal_keep_size", "64MB")
			.start()) {
			PostgresDatabase database = server.createDatabase();
			database.execute("CREATE TABLE kept (id int PRIMARY KEY)", "CREATE PUBLICATION kept_pub FOR TABLE kept",
					"SELECT pg_create_logical_replication_slot('doomed', 'pgoutput')", "CREATE TABLE filler (v text)");
			try (Connection connection = database.connect()) {
				ReplicationAdmin admin = new ReplicationAdmin(connection);
				assertThat(SlotLoss.check(admin, "doomed", true, null)).isEmpty();
				writeWal(connection, 100 * MB);
				SlotInfo unreserved = admin.slot("doomed").orElseThrow();
				assertThat(unreserved.walStatus()).isEqualTo("unreserved");
				assertThat(unreserved.safeWalSize()).isNegative();
				assertThat(unreserved.retainedBytes(admin.currentLsn())).isGreaterThan(64 * MB);
				assertThat(unreserved.isLost()).isFalse();
				List<String> statuses = new ArrayList<>();
				for (int attempt = 0; attempt < 5 && !admin.slot("doomed").orElseThrow().isLost(); attempt++) {
					execute(connection, "CHECKPOINT");
					statuses.add(admin.slot("doomed").orElseThrow().walStatus());
					execute(connection, "SELECT pg_switch_wal()");
				}
				assertThat(statuses).last().isEqualTo("lost");
				SlotInfo lost = admin.slot("doomed").orElseThrow();
				assertThat(lost.restartLsn()).isNull();
				assertThat(lost.retainedBytes(admin.currentLsn())).isNull();
				assertThat(lost.invalidationReason())
					.isEqualTo((server.serverVersion() >= 170000) ? "wal_removed" : null);
				SlotLostException loss = SlotLoss.check(admin, "doomed", true, null).orElseThrow();
				assertThat(loss.reason()).isEqualTo(SlotLostException.Reason.INVALIDATED);
				assertThat(loss.walStatus()).isEqualTo("lost");
				assertThat(loss.lastConfirmedLsn()).isEqualTo(lost.confirmedFlushLsn());
				assertThat(loss).hasMessageStartingWith(
						"Replication slot 'doomed' is lost: the server invalidated it" + " (wal_status=lost"
								+ ((server.serverVersion() >= 170000) ? ", invalidation_reason=wal_removed)" : ")"));
				assertThat(SlotLoss.check(admin, "doomed", false, null)).isPresent();
				assertThatExceptionOfType(SQLException.class).isThrownBy(() -> {
					try (RawStream stream = RawStream.open(database, "doomed", "kept_pub")) {
						stream.readPending();
					}
				}).satisfies((ex) -> {
					assertThat(ex.getSQLState()).isEqualTo("55000");
					// The text changes with the version ("cannot read from logical
					// replication slot" up to
					// 16, "can no longer get changes from" on 17, "can no longer access"
					// on 18); the
					// SQLState does not.
					assertThat(ex.getMessage()).contains("replication slot \"doomed\"");
					assertThat(SlotLoss.mayMeanLost(ex)).isTrue();
				});
			}
		}
	}

	@Test
	void aMissingSlotIsLostOnlyWhereItShouldExist(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE absent_t (id int PRIMARY KEY)",
				"CREATE PUBLICATION absent_pub FOR TABLE absent_t");
		try (Connection connection = database.connect()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			assertThat(SlotLoss.check(admin, "never_made", false, null)).isEmpty();
			SlotLostException loss = SlotLoss.check(admin, "never_made", true, io.postlog.Lsn.parse("0/16B374D"))
				.orElseThrow();
			assertThat(loss.reason()).isEqualTo(SlotLostException.Reason.MISSING);
			assertThat(loss).hasMessageContaining("changes after 0/16B374D can no longer be streamed");
			assertThatExceptionOfType(SQLException.class).isThrownBy(() -> {
				try (RawStream stream = RawStream.open(database, "never_made", "absent_pub")) {
					stream.readPending();
				}
			}).satisfies((ex) -> {
				assertThat(ex.getSQLState()).isEqualTo("42704");
				assertThat(SlotLoss.mayMeanLost(ex)).isTrue();
			});
		}
	}

	private static void writeWal(Connection connection, long bytes) throws SQLException {
		// Rows of 1 kB, committed in batches so that no single transaction is huge.
		long rows = bytes / 1000;
		for (long done = 0; done < rows; done += 20_000) {
			execute(connection, "INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, 20000)");
		}
	}

	private static void execute(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			if (statement.execute(sql)) {
				try (ResultSet ignored = statement.getResultSet()) {
					// Drained.
				}
			}
		}
	}

}
