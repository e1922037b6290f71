package io.postlog.consumer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.consumer.checkpoint.ChunkTable;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A backfill with {@link JdbcCheckpointStore} is effect-once: its listener inserts each
 * row with a plain {@code INSERT} into a sink table with a primary key, in the sink
 * transaction. A listener failure in the middle of a chunk rolls back the chunk's rows
 * delivered so far, which then go again whole; a stop in the middle of the backfill
 * leaves the chunks committed with their marks, and the next consumer resumes after them.
 * The sink ends equal to the table, and no insert ever met a duplicate key.
 */
@PostgresTest
class EffectOnceBackfillIntegrationTests {

	private static final int ROWS = 3_000;

	private static final int CHUNK = 200;

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void backfillRowsReachTheSinkExactlyOnceAcrossAFailureAndAStop(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE eo_rows (id bigint PRIMARY KEY, a int NOT NULL)",
				"INSERT INTO eo_rows SELECT g, g % 100 FROM generate_series(1, " + ROWS + ") g",
				"CREATE TABLE eo_sink (id bigint PRIMARY KEY, a int NOT NULL)");
		JdbcCheckpointStore store = JdbcCheckpointStore.of(JdbcCheckpointStoreIntegrationTests.dataSource(database),
				"eo_slot");
		AtomicInteger delivered = new AtomicInteger();
		AtomicInteger duplicates = new AtomicInteger();
		AtomicBoolean failed = new AtomicBoolean();
		// The middle of the third chunk: 70 rows of it are in the sink transaction then.
		long failAt = 2L * CHUNK + 70;
		ReplicationConsumer first = start(builder(database, store, delivered, duplicates, (id) -> {
			if (id == failAt && failed.compareAndSet(false, true)) {
				throw new IllegalStateException("Failing once in the middle of a chunk");
			}
		}));
		await().atMost(Duration.ofMinutes(1)).until(() -> first.state() == ConsumerState.RUNNING);
		Backfill backfill = first.backfill(List.of(TableId.parse("eo_rows")));
		await().atMost(Duration.ofMinutes(2)).until(() -> count(database, "eo_sink") >= ROWS / 3);
		first.stop();
		long atStop = count(database, "eo_sink");
		assertThat(failed).as("the listener failed once mid-chunk").isTrue();
		assertThat(atStop).as("rows in the sink when the backfill was stopped").isLessThan(ROWS);
		assertThat(atStop % CHUNK).as("the sink holds whole chunks only").isZero();
		assertThat(marks(database, backfill.id())).as("the sink's marks").isPositive();
		ReplicationConsumer second = start(builder(database, store, delivered, duplicates, (id) -> {
		}));
		await().atMost(Duration.ofMinutes(2))
			.until(() -> second.backfills()
				.stream()
				.anyMatch((resumed) -> resumed.id().equals(backfill.id())
						&& resumed.state() == Backfill.State.COMPLETED));
		assertThat(duplicates).as("inserts that met a duplicate key").hasValue(0);
		assertThat(count(database, "eo_sink")).isEqualTo(ROWS);
		assertThat(
				count(database, "eo_rows r WHERE NOT EXISTS (SELECT 1 FROM eo_sink s WHERE s.id = r.id AND s.a = r.a)"))
			.as("table rows missing from the sink")
			.isZero();
		assertThat(delivered.get()).as("rows delivered, rolled back ones included").isLessThanOrEqualTo(ROWS + CHUNK);
		assertThat(marks(database, backfill.id())).as("the marks of the completed backfill").isZero();
	}

	private ReplicationConsumer.Builder builder(PostgresDatabase database, JdbcCheckpointStore store,
			AtomicInteger delivered, AtomicInteger duplicates, RowHook hook) {
		return BackfillIntegrationTests.builder(database, "eo_slot", "eo_rows", CHUNK)
			.checkpointStore(store)
			.retryPolicy(new RetryPolicy(Duration.ofMillis(20), 2, Duration.ofMillis(100), 5))
			.subscribe(Subscription.onChange("sink", (change) -> {
				if (change.operation() != Operation.SNAPSHOT) {
					return;
				}
				long id = change.after().get("id", Long.class);
				hook.row(id);
				try (PreparedStatement insert = store.connection()
					.prepareStatement("INSERT INTO eo_sink (id, a) VALUES (?, ?)")) {
					insert.setLong(1, id);
					insert.setInt(2, change.after().get("a", Integer.class));
					insert.executeUpdate();
				}
				catch (SQLException ex) {
					if ("23505".equals(ex.getSQLState())) {
						duplicates.incrementAndGet();
					}
					throw new IllegalStateException(ex);
				}
				delivered.incrementAndGet();
				// Slow enough for the stop to come in the middle of the backfill.
				if (id % 20 == 0) {
					sleep();
				}
			}));
	}

	private ReplicationConsumer start(ReplicationConsumer.Builder builder) {
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		consumer.start();
		return consumer;
	}

	private static void sleep() {
		try {
			Thread.sleep(2);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static long marks(PostgresDatabase database, String backfillId) throws SQLException {
		return count(database, "postlog_checkpoint" + ChunkTable.SUFFIX + " WHERE backfill_id = '" + backfillId + "'");
	}

	private static long count(PostgresDatabase database, String from) throws SQLException {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT count(*) FROM " + from)) {
			row.next();
			return row.getLong(1);
		}
	}

	@FunctionalInterface
	private interface RowHook {

		void row(long id);

	}

}
