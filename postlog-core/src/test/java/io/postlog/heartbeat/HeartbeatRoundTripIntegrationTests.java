package io.postlog.heartbeat;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.TableId;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A heartbeat written by {@link HeartbeatWriter} comes back through a real stream and the
 * consumer recognises it itself ({@link ReplicationConsumer.Builder#heartbeatMonitor}):
 * as a logical message on 14+, which it asks for without any message subscription, and as
 * a row of the heartbeat table before 14, which its set-up creates and publishes. A
 * change handler of every table and a message handler never see one; a stopped reader
 * makes the next heartbeat missing.
 */
@Tag("matrix")
@PostgresTest
class HeartbeatRoundTripIntegrationTests {

	@Test
	void heartbeatsComeBackThroughTheStreamToTheMonitorOnlyAndAStoppedReaderMakesThemMissing(PostgresDatabase database)
			throws Exception {
		int version = database.serverVersion();
		TableId table = HeartbeatWriter.DEFAULT_TABLE;
		HeartbeatTracker tracker = new HeartbeatTracker("beat_slot", Duration.ofSeconds(2));
		HeartbeatWriter writer = new HeartbeatWriter("beat_slot", tracker.instance(), table);
		database.execute("CREATE TABLE watched (id int PRIMARY KEY)");
		List<Change> changes = new CopyOnWriteArrayList<>();
		List<LogicalMessage> messages = new CopyOnWriteArrayList<>();
		ReplicationConsumer.Builder builder = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName("beat_slot")
			.publicationName("beat_pub")
			.statusInterval(Duration.ofSeconds(1))
			.heartbeatMonitor(tracker)
			.changeHandler(changes::add);
		if (!HeartbeatWriter.usesTable(version)) {
			builder.messageHandler(messages::add);
		}
		ReplicationConsumer consumer = builder.build();
		try (Connection connection = database.connect()) {
			consumer.start();
			try {
				if (HeartbeatWriter.usesTable(version)) {
					// Set-up created the table, and every table is published.
					assertThat(new ReplicationAdmin(connection).publicationTables("beat_pub")).contains(table);
				}
				for (int i = 0; i < 3; i++) {
					tracker.emitted(writer.write(connection));
				}
				database.execute("INSERT INTO watched VALUES (1)");
				if (!HeartbeatWriter.usesTable(version)) {
					database.execute("SELECT pg_logical_emit_message(false, 'audit', 'x')");
				}
				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
					HeartbeatStatus status = tracker.status(Instant.now());
					assertThat(status.lastReceived()).isNotNull();
					assertThat(status.lastReceived().sequence()).isEqualTo(3);
					assertThat(status.missingFor()).isNull();
					assertThat(changes).isNotEmpty();
				});
				assertThat(tracker.status(Instant.now()).lastRoundTrip()).isLessThan(Duration.ofSeconds(30));
				if (!HeartbeatWriter.usesTable(version)) {
					await().atMost(Duration.ofSeconds(10)).until(() -> !messages.isEmpty());
					assertThat(messages).extracting(LogicalMessage::prefix).containsExactly("audit");
				}
				assertThat(changes).extracting((change) -> change.table().name()).containsExactly("watched");
			}
			finally {
				consumer.stop();
			}
			tracker.emitted(writer.write(connection));
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(200))
				.until(() -> tracker.status(Instant.now()).isMissing());
			assertThat(tracker.status(Instant.now()).lastReceived().sequence()).isEqualTo(3);
		}
	}

}
