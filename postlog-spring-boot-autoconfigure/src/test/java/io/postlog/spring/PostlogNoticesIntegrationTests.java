package io.postlog.spring;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Change;
import io.postlog.consumer.ConsumerState;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The INFO lines an operator relies on, and a listener configured with placeholders, on a
 * real server.
 */
@PostgresTest
@ExtendWith(OutputCaptureExtension.class)
class PostlogNoticesIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@Test
	void streamingStandbyTakeOverStopAndDisabledWhileTheSlotExistsAreLogged(PostgresDatabase database,
			CapturedOutput output) {
		database.execute("CREATE TABLE IF NOT EXISTS notes (id int PRIMARY KEY)");
		String[] properties = { "postlog.slot.name=notice_slot", "postlog.publication.name=notice_pub",
				"postlog.retry.initial-interval=50ms", "postlog.retry.max-interval=200ms", "app.table=notes",
				"app.listener-id=notes-reader", "app.lanes=2", "app.group=" };
		ConfigurableApplicationContext first = PostlogListenersIntegrationTests.run(PlaceholderApplication.class,
				database, properties);
		ConfigurableApplicationContext second;
		try {
			// Logged by the consumer's thread once it streams, which may be after
			// start-up.
			await().atMost(TIMEOUT)
				.untilAsserted(() -> assertThat(output).contains(
						"postlog group 'default' is streaming from slot notice_slot, publication notice_pub, at position "));
			database.execute("INSERT INTO notes VALUES (1)");
			CaughtUp.await(first, TIMEOUT);
			assertThat(Notes.received).extracting((change) -> change.after().get("id")).containsExactly(1);
			PostlogConsumerGroup group = first.getBean(PostlogListenerRegistry.class).group("");
			assertThat(group.listeners()).singleElement().satisfies((listener) -> {
				assertThat(listener.id()).isEqualTo("notes-reader");
				assertThat(listener.tables()).containsExactly("public.notes");
				assertThat(listener.concurrency()).isEqualTo(2);
			});

			second = PostlogListenersIntegrationTests.run(PlaceholderApplication.class, database, properties);
			PostlogConsumerGroup standby = second.getBean(PostlogListenerRegistry.class).group("");
			await().atMost(TIMEOUT).until(() -> standby.state() == ConsumerState.STANDBY);
			assertThat(output).contains("Slot notice_slot is in use by another process; waiting in standby");
		}
		finally {
			first.close();
		}
		try (second) {
			assertThat(output).contains("Consumer of slot notice_slot stopped at acknowledged position ");
			PostlogConsumerGroup group = second.getBean(PostlogListenerRegistry.class).group("");
			await().atMost(TIMEOUT).until(() -> group.state() == ConsumerState.RUNNING);
			assertThat(output)
				.contains("Slot notice_slot was released by the other process; this consumer took it over");
		}
		database.execute("INSERT INTO notes VALUES (2)");
		PostlogListenersIntegrationTests
			.run(PlaceholderApplication.class, database, "postlog.enabled=false", "postlog.slot.name=notice_slot",
					"app.table=notes")
			.close();
		assertThat(output).containsPattern("postlog is disabled \\(postlog.enabled=false\\), but replication slot "
				+ "notice_slot still exists and retains [0-9.]+ (bytes|KB|MB|GB)[^;]*; the server keeps it until the "
				+ "slot is read or dropped. Drop it with SELECT pg_drop_replication_slot\\('notice_slot'\\)");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class PlaceholderApplication {

		@Bean
		Notes notes() {
			return new Notes();
		}

	}

	static class Notes {

		static final List<Change> received = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "${app.table}", id = "${app.listener-id:notes}", concurrency = "${app.lanes:1}",
				group = "${app.group:}")
		void onNote(Change change) {
			received.add(change);
		}

	}

}
