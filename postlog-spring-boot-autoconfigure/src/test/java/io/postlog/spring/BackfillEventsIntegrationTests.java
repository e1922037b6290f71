package io.postlog.spring;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.consumer.Backfill;
import io.postlog.consumer.ConsumerState;
import io.postlog.snapshot.TableProgress;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A backfill's events frame its rows, and its progress counts rows as the listener
 * finishes them: {@link PostlogBackfillStartedEvent} comes before its first
 * {@code SNAPSHOT} row and {@link PostlogBackfillCompletedEvent} after its last, and
 * while the first chunk of 3,000 rows is still going through a slow listener,
 * {@code rowsDone} already shows rows the listener finished.
 */
@PostgresTest
class BackfillEventsIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofMinutes(2);

	@Test
	void eventsFrameTheBackfillsRowsAndProgressCountsRowsAsTheListenerFinishesThem(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE ev_orders (id bigint PRIMARY KEY, a int NOT NULL)",
				"INSERT INTO ev_orders SELECT g, g FROM generate_series(1, 6000) g", "ANALYZE ev_orders");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(EventsApplication.class,
				database, "postlog.slot.name=ev_app", "postlog.snapshot.chunk-size=3000")) {
			Recorder recorder = context.getBean(Recorder.class);
			PostlogConsumerGroup group = context.getBean(PostlogListenerRegistry.class)
				.group(PostlogConsumerGroup.DEFAULT);
			await().atMost(TIMEOUT).until(() -> group.state() == ConsumerState.RUNNING);
			Backfill backfill = group.backfill(List.of(TableId.parse("ev_orders")));
			await().atMost(TIMEOUT).until(() -> recorder.snapshotRows.get() >= 500);
			long early = backfill.rowsDone();
			assertThat(early).as("rows done while the first chunk of 3,000 goes through the listener")
				.isPositive()
				.isLessThan(3000);
			await().atMost(TIMEOUT).until(() -> backfill.state() == Backfill.State.COMPLETED);
			await().atMost(TIMEOUT).until(() -> recorder.events.size() == 2);
			assertThat(recorder.events).containsExactly("started at 0", "completed at 6000");
			assertThat(backfill.rowsDone()).isEqualTo(6000);
			assertThat(backfill.progress()).containsExactly(
					new TableProgress(TableId.parse("public.ev_orders"), 6000, backfill.rowsEstimated(), 1, 1, true));
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class EventsApplication {

		@Bean
		Recorder recorder() {
			return new Recorder();
		}

	}

	static class Recorder {

		final AtomicLong snapshotRows = new AtomicLong();

		final List<String> events = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "ev_orders")
		void onOrder(Change change) throws InterruptedException {
			if (change.operation() == Operation.SNAPSHOT) {
				this.snapshotRows.incrementAndGet();
				Thread.sleep(1);
			}
		}

		@EventListener
		void started(PostlogBackfillStartedEvent event) {
			this.events.add("started at " + this.snapshotRows.get());
		}

		@EventListener
		void completed(PostlogBackfillCompletedEvent event) {
			this.events.add("completed at " + this.snapshotRows.get());
		}

	}

}
