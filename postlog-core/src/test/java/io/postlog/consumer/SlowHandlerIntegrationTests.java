package io.postlog.consumer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@PostgresTest(settings = { "wal_sender_timeout=3s" })
class SlowHandlerIntegrationTests {

	@Test
	void handlerSlowerThanTheWalSenderTimeoutKeepsTheConnection(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE slow (id int PRIMARY KEY)");
		List<Integer> seen = new CopyOnWriteArrayList<>();
		Recorder recorder = new Recorder();
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName("slow_slot")
			.slotLifecycle(SlotLifecycle.CREATE_IF_MISSING)
			.publicationName("slow_pub")
			.tables(List.of(new TableId("public", "slow")))
			.readAhead(4, 1024 * 1024)
			.listener(recorder)
			.changeHandler((change) -> {
				int id = change.after().get("id", Integer.class);
				if (id == 1) {
					Thread.sleep(10_000);
				}
				seen.add(id);
			})
			.build();
		consumer.start();
		try {
			await().until(() -> consumer.state() == ConsumerState.RUNNING);
			Integer pidBefore = await()
				.until(() -> ReplicationConsumerIntegrationTests.activePid(database, "slow_slot"), (p) -> p != null);
			database.execute("INSERT INTO slow VALUES (1)");
			database.execute("INSERT INTO slow SELECT g FROM generate_series(2, 2000) g");
			await().atMost(Duration.ofSeconds(40)).until(() -> seen.size() >= 2000);
			Integer pidAfter = ReplicationConsumerIntegrationTests.activePid(database, "slow_slot");
			assertThat(pidAfter).isEqualTo(pidBefore);
			assertThat(seen.stream().filter((id) -> id == 1)).hasSize(1);
			assertThat(seen).hasSize(2000);
			assertThat(recorder.retries).isEmpty();
		}
		finally {
			consumer.stop();
		}
	}

	static final class Recorder implements ConsumerListener {

		final List<Integer> retries = new CopyOnWriteArrayList<>();

		@Override
		public void retrying(int attempt, Duration backOff, Throwable cause) {
			this.retries.add(attempt);
		}

	}

}
