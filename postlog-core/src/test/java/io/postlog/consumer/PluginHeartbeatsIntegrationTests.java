package io.postlog.consumer;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.decoder.Wal2JsonDecoder;
import io.postlog.heartbeat.HeartbeatStatus;
import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.heartbeat.HeartbeatWriter;
import io.postlog.test.PluginLaneTest;
import io.postlog.test.PostgresDatabase;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Heartbeats through wal2json on the plugin lane's PostgreSQL 15: the non-transactional
 * logical messages {@link HeartbeatWriter} writes come back to the monitor through
 * wal2json's stream, and neither the change handler nor the message handler sees one.
 * (pglogical sends no messages, so heartbeat tracking is refused with it; see
 * {@link DecoderRefusalsIntegrationTests}.)
 */
@PluginLaneTest
class PluginHeartbeatsIntegrationTests {

	@Test
	void wal2jsonCarriesHeartbeatMessagesToTheMonitorOnly(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE watched (id int PRIMARY KEY)");
		HeartbeatTracker tracker = new HeartbeatTracker("w2j_beats", Duration.ofSeconds(30));
		HeartbeatWriter writer = new HeartbeatWriter("w2j_beats", tracker.instance(), HeartbeatWriter.DEFAULT_TABLE);
		List<Change> changes = new CopyOnWriteArrayList<>();
		List<LogicalMessage> messages = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName("w2j_beats")
			.slotLifecycle(SlotLifecycle.OWNED)
			.decoder(Wal2JsonDecoder.forTables(List.of(TableId.parse("watched"))))
			.statusInterval(Duration.ofSeconds(1))
			.heartbeatMonitor(tracker)
			.changeHandler(changes::add)
			.messageHandler(messages::add)
			.build();
		consumer.start();
		try (Connection connection = database.connect()) {
			for (int i = 0; i < 3; i++) {
				tracker.emitted(writer.write(connection));
			}
			database.execute("INSERT INTO watched VALUES (1)", "SELECT pg_logical_emit_message(false, 'audit', 'x')");
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				HeartbeatStatus status = tracker.status(Instant.now());
				assertThat(status.lastReceived()).isNotNull();
				assertThat(status.lastReceived().sequence()).isEqualTo(3);
				assertThat(changes).isNotEmpty();
				assertThat(messages).isNotEmpty();
			});
			assertThat(changes).extracting((change) -> change.table().name()).containsExactly("watched");
			assertThat(messages).extracting(LogicalMessage::prefix).containsExactly("audit");
		}
		finally {
			consumer.stop();
		}
	}

}
