package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.postlog.TableId;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.types.ValueDecoders;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The backfill read's visibility on a real server. A transaction the stream delivered can
 * still be invisible to a snapshot taken after it (PostgreSQL makes a commit visible a
 * moment after its WAL record is flushed); a transaction kept open stands in for it here,
 * as the snapshot cannot tell the two apart.
 */
@Tag("matrix")
@PostgresTest
class BackfillReaderIntegrationTests {

	@Test
	void readWaitsUntilItSeesEveryDeliveredTransaction(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE bfr_seen (id bigint PRIMARY KEY, a int NOT NULL)",
				"INSERT INTO bfr_seen SELECT g, 0 FROM generate_series(1, 10) g");
		try (Connection reading = database.connect(); Connection writing = database.connect()) {
			BackfillReader reader = new BackfillReader(ValueDecoders.standard(), database.serverVersion());
			BackfillTable table = reader.plan(reading, TableId.parse("bfr_seen"), null);
			long xid = openTransaction(writing, "UPDATE bfr_seen SET a = 1 WHERE id = 5");
			CompletableFuture<BackfillChunk> read = CompletableFuture.supplyAsync(() -> {
				try {
					return reader.read(reading, table, null, 100, false, new long[] { 3, xid });
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			// A read that does not see a delivered transaction does not return.
			await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> !read.isDone());
			writing.commit();
			BackfillChunk chunk = read.get(30, TimeUnit.SECONDS);
			assertThat(chunk.visibility().sees(xid)).isTrue();
			assertThat(chunk.rows()).hasSize(10);
			assertThat(chunk.rows().get(4).key()).containsExactly(5L);
			assertThat(chunk.rows().get(4).row().get("a")).isEqualTo(1);
		}
	}

	@Test
	void transactionThatStaysInvisibleFailsTheRead(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE bfr_stuck (id bigint PRIMARY KEY, a int NOT NULL)",
				"INSERT INTO bfr_stuck VALUES (1, 0)");
		try (Connection reading = database.connect(); Connection writing = database.connect()) {
			BackfillReader reader = new BackfillReader(ValueDecoders.standard(), database.serverVersion());
			BackfillTable table = reader.plan(reading, TableId.parse("bfr_stuck"), null);
			long xid = openTransaction(writing, "SELECT 1");
			assertThatExceptionOfType(SnapshotReadException.class)
				.isThrownBy(() -> reader.read(reading, table, null, 100, false, new long[] { xid }))
				.withMessageContaining("stayed invisible");
			writing.rollback();
			assertThat(reader.read(reading, table, null, 100, false, new long[0]).rows()).hasSize(1);
			assertThat(reading.getAutoCommit()).isTrue();
		}
	}

	/**
	 * Runs a statement in a transaction left open, as a delivered transaction not yet
	 * visible would be.
	 * @return the transaction's 32-bit id, as the stream sends it
	 */
	private static long openTransaction(Connection connection, String sql) throws Exception {
		connection.setAutoCommit(false);
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
			try (ResultSet row = statement.executeQuery("SELECT txid_current()")) {
				row.next();
				return row.getLong(1) & 0xFFFF_FFFFL;
			}
		}
	}

}
