package io.postlog.heartbeat;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.postlog.TableId;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A heartbeat written by {@link HeartbeatWriter} comes back through a real stream and is
 * recognised by {@link Heartbeat}: as a logical message on 14+, as a row of the published
 * heartbeat table before. The consumer is wired here the way it is to recognise
 * heartbeats itself.
 */
@Tag("matrix")
@PostgresTest
class HeartbeatRoundTripIntegrationTests {

	@Test
	void heartbeatsComeBackThroughTheStreamAndAStoppedReaderMakesThemMissing(PostgresDatabase database)
			throws Exception {
		int version = database.serverVersion();
		TableId table = new TableId("public", "postlog_heartbeat");
		HeartbeatTracker tracker = new HeartbeatTracker("beat_slot", Duration.ofSeconds(2));
		HeartbeatWriter writer = new HeartbeatWriter("beat_slot", tracker.instance(), table);
		database.execute("CREATE TABLE watched (id int PRIMARY KEY)");
		List<TableId> published = List.of(TableId.parse("watched"));
		try (Connection connection = database.connect()) {
			if (HeartbeatWriter.usesTable(version)) {
				writer.ensureTable(connection);
				published = List.of(TableId.parse("watched"), table);
			}
			ReplicationConsumer.Builder builder = ReplicationConsumer.builder()
				.jdbcUrl(database.jdbcUrl(), database.username(), null)
				.slotName("beat_slot")
				.publicationName("beat_pub")
				.tables(published)
				.statusInterval(Duration.ofSeconds(1))
				.changeHandler((change) -> Heartbeat.fromRow(change.table(), table, change.after())
					.ifPresent((beat) -> tracker.received(beat, Instant.now())));
			if (!HeartbeatWriter.usesTable(version)) {
				builder.messageHandler((message) -> Heartbeat.fromMessage(message)
					.ifPresent((beat) -> tracker.received(beat, Instant.now())));
			}
			ReplicationConsumer consumer = builder.build();
			consumer.start();
			try {
				tracker.streamStarted(Instant.now());
				for (int i = 0; i < 3; i++) {
					tracker.emitted(writer.write(connection));
				}
				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
					HeartbeatStatus status = tracker.status(Instant.now());
					assertThat(status.lastReceived()).isNotNull();
					assertThat(status.lastReceived().sequence()).isEqualTo(3);
					assertThat(status.missingFor()).isNull();
				});
				assertThat(tracker.status(Instant.now()).lastRoundTrip()).isLessThan(Duration.ofSeconds(30));
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
