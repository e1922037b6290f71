package io.postlog.consumer;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import io.postlog.test.PostgresDatabase;

import static io.postlog.consumer.ReplicationConsumerIntegrationTests.activePid;
import static io.postlog.consumer.ReplicationConsumerIntegrationTests.confirmedFlush;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Consumers stopped while the server is sending: a writer commits 3,000-row transactions
 * to table {@code busy} without a pause, and five consumers in turn, each on a slot of
 * its own, are stopped once they have 20,000 changes. After each stop the slot must be
 * exactly at the consumer's {@link ReplicationConsumer#ackedLsn()}: a walsender that is
 * sending as the connection closes fails its next write and exits, and unless the
 * connection lingers until the server has closed it, the final acknowledgement that
 * arrived just before is never read.
 */
final class BusyStops {

	private static final int ROUNDS = 5;

	private BusyStops() {
	}

	/**
	 * Runs the stops.
	 * @param database the database, where table {@code busy} must not exist yet
	 * @param start starts a consumer of table {@code busy} on the given slot with the
	 * given change handler
	 */
	static void run(PostgresDatabase database, BiFunction<String, ChangeHandler, ReplicationConsumer> start)
			throws Exception {
		database.execute("CREATE TABLE busy (id bigserial PRIMARY KEY, pad text)");
		AtomicBoolean writing = new AtomicBoolean(true);
		Thread writer = new Thread(() -> {
			try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
				while (writing.get()) {
					statement.execute("INSERT INTO busy (pad) SELECT repeat('x', 100) FROM generate_series(1, 3000)");
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}, "busy-writer");
		writer.start();
		try {
			for (int round = 0; round < ROUNDS; round++) {
				String slot = "busy_slot_" + round;
				AtomicInteger delivered = new AtomicInteger();
				ReplicationConsumer consumer = start.apply(slot, (change) -> delivered.incrementAndGet());
				await().until(() -> delivered.get() >= 20_000);
				consumer.stop();
				await().until(() -> activePid(database, slot) == null);
				assertThat(confirmedFlush(database, slot)).as("the slot's position after stop %d", round)
					.isEqualTo(consumer.ackedLsn());
				database.execute("SELECT pg_drop_replication_slot('" + slot + "')");
			}
		}
		finally {
			writing.set(false);
			writer.join(Duration.ofMinutes(1).toMillis());
		}
	}

}
