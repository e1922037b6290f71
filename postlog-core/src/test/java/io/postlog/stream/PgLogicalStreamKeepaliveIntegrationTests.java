package io.postlog.stream;

import java.time.Duration;
import java.util.List;

import io.postlog.admin.ConnectionLostException;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The server ends a walsender that has not heard from its client for
 * {@code wal_sender_timeout}; here that is 3 s, well under the idle times tested.
 */
@Tag("matrix")
@PostgresTest(settings = "wal_sender_timeout=3s")
class PgLogicalStreamKeepaliveIntegrationTests {

	private static final Duration STATUS_INTERVAL = Duration.ofSeconds(1);

	@Test
	void idleLongerThanTheSenderTimeoutKeepsTheStream(PostgresDatabase database) {
		StreamFixture fixture = new StreamFixture(database, "idle").withSlot();
		try (LogicalStream stream = fixture.open(STATUS_INTERVAL)) {
			StreamFixture.readNothing(stream, Duration.ofSeconds(10));
			fixture.insert(1);
			List<byte[]> messages = StreamFixture.readTransaction(stream, Duration.ofSeconds(20));
			assertThat(StreamFixture.tags(messages)).isEqualTo("BRIC");
		}
	}

	@Test
	void streamSendsNothingOnItsOwnSoAnOwnerThatIsSilentLosesTheConnectionAndReadSaysSo(PostgresDatabase database)
			throws Exception {
		StreamFixture fixture = new StreamFixture(database, "unread").withSlot();
		try (LogicalStream stream = fixture.open(STATUS_INTERVAL)) {
			StreamFixture.readNothing(stream, Duration.ofMillis(50));
			// No timer speaks for the owner: status is the owner's (the consumer's reader
			// thread) to send, so the server ends a walsender whose owner is silent.
			await().atMost(Duration.ofSeconds(20)).until(() -> !"true".equals(fixture.slotColumn("active")));
			long start = System.nanoTime();
			// The walsender's end reaches the client as the end of the socket's stream
			// or,
			// when the server sent its error first, as a failed read: a lost connection
			// either way.
			assertThatExceptionOfType(ConnectionLostException.class).isThrownBy(() -> {
				while (true) {
					stream.read(Duration.ofMillis(100));
				}
			});
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		}
	}

}
