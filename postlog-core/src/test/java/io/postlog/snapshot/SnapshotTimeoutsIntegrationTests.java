package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.snapshot.SnapshotHandOff.Action;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.types.ValueDecoders;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A snapshot slower than the server's timeouts still completes: the replication
 * connection idles for the whole read (past {@code wal_sender_timeout}, which applies
 * only to streaming, and {@code idle_session_timeout}, which the hand-off turns off for
 * it), and the readers idle in their transactions and run {@code COPY} statements blocked
 * by a slow sink (past {@code idle_in_transaction_session_timeout} and
 * {@code statement_timeout}, which they turn off locally).
 */
@Tag("matrix")
@PostgresTest(settings = "wal_sender_timeout=1s")
class SnapshotTimeoutsIntegrationTests {

	@Test
	void slowSnapshotOutlivesTheServersTimeouts(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE patient (id int PRIMARY KEY, payload text)",
				"INSERT INTO patient SELECT g, md5(g::text) FROM generate_series(1, 30000) g",
				"ALTER DATABASE " + database.name() + " SET statement_timeout = '1s'",
				"ALTER DATABASE " + database.name() + " SET idle_in_transaction_session_timeout = '1s'");
		if (database.serverVersion() >= 140000) {
			database.execute("ALTER DATABASE " + database.name() + " SET idle_session_timeout = '1s'");
		}
		try (Connection idle = database.connect(); Statement statement = idle.createStatement()) {
			statement.execute("BEGIN");
			Thread.sleep(2500);
			assertThatExceptionOfType(SQLException.class).as("the timeouts are in force")
				.isThrownBy(() -> statement.execute("SELECT 1"));
		}
		AtomicLong delivered = new AtomicLong();
		try (SnapshotHandOff handOff = SnapshotHandOff.open(database.connectReplication(), "patient_slot",
				SlotLifecycle.CREATE_IF_MISSING, TableId.parse("postlog_snapshot"))) {
			ExportedSnapshot snapshot;
			try (Connection admin = database.connect()) {
				assertThat(handOff.decide(admin).action()).isEqualTo(Action.SNAPSHOT);
				snapshot = handOff.exportSnapshot(admin);
			}
			Thread.sleep(2500);
			new SnapshotReader(SnapshotConnections.of(database.jdbcUrl(), database.username(), null),
					ValueDecoders.standard())
				.read(snapshot, List.of(TableId.parse("patient")), SnapshotOptions.defaults().withChunkSize(10_000),
						(change) -> {
							if (delivered.incrementAndGet() % 10_000 == 0) {
								sleep(1500);
							}
						});
			Thread.sleep(2500);
			try (Connection admin = database.connect()) {
				assertThat(handOff.complete(admin).confirmedFlushLsn()).isEqualTo(snapshot.consistentPoint());
			}
		}
		assertThat(delivered).hasValue(30000);
		database.execute("SELECT pg_drop_replication_slot('patient_slot')");
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
