package io.postlog.spring;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.heartbeat.HeartbeatStatus;
import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.spring.boot.health.PostlogHealthContributor;
import io.postlog.spring.boot.health.PostlogHealthIndicator;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code postlog.heartbeat.interval} on a real server: the heartbeats come back through
 * the stream to the tracker (messages on 14+, rows of the published heartbeat table
 * before), feed {@code postlog.replication.delay} while no data flows, and reach no
 * listener, not one of every table nor one of the heartbeat prefix. A listener blocked
 * past {@code postlog.heartbeat.timeout} makes health DOWN with the reason; released, UP.
 */
@PostgresTest
class HeartbeatIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@Test
	void heartbeatsComeBackToHealthAndTheDelayMeterButToNoListener(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE orders (id int PRIMARY KEY)");
		boolean messages = database.serverVersion() >= 140000;
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(HeartbeatApplication.class,
				database, "postlog.slot.name=beats", "postlog.publication.name=beats",
				"postlog.heartbeat.interval=300ms", "postlog.heartbeat.timeout=3s", "postlog.status-interval=1s",
				"test.heartbeat-prefix-listener=" + messages)) {
			HeartbeatTracker tracker = context.getBean(HeartbeatTracker.class);
			Everything everything = context.getBean(Everything.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			await().atMost(TIMEOUT).untilAsserted(() -> {
				HeartbeatStatus status = tracker.status(Instant.now());
				assertThat(status.lastReceived()).isNotNull();
				assertThat(status.lastReceived().sequence()).isGreaterThanOrEqualTo(3);
				assertThat(meters.get("postlog.replication.delay").timer().count()).isGreaterThanOrEqualTo(3);
			});
			assertThat(meters.get("postlog.transactions").counter().count()).isZero();
			Health up = health(context);
			assertThat(up.getStatus()).isEqualTo(Status.UP);
			assertThat(((Map<?, ?>) up.getDetails().get("heartbeat")).get("lastReceivedAt")).isNotNull();

			database.execute("INSERT INTO orders VALUES (1)");
			await().atMost(TIMEOUT).until(() -> everything.changes.size() == 1);

			CountDownLatch release = new CountDownLatch(1);
			everything.block = release;
			database.execute("INSERT INTO orders VALUES (2)");
			assertThat(everything.entered.await(30, TimeUnit.SECONDS)).isTrue();
			await().atMost(TIMEOUT).untilAsserted(() -> {
				Health down = health(context);
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails().get("reasons").toString()).contains("heartbeat not seen for",
						"(postlog.heartbeat.timeout is 3s)");
			});
			release.countDown();
			await().atMost(TIMEOUT).until(() -> health(context).getStatus().equals(Status.UP));
			assertThat(everything.changes).extracting((change) -> change.table().name())
				.containsExactly("orders", "orders");
			if (messages) {
				assertThat(context.getBean(HeartbeatPrefix.class).messages).isEmpty();
			}
		}
	}

	private static Health health(ConfigurableApplicationContext context) {
		return ((PostlogHealthIndicator) context.getBean(PostlogHealthContributor.class).getContributor("default"))
			.health(true);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class HeartbeatApplication {

		@Bean
		Everything everything() {
			return new Everything();
		}

		@Bean
		@ConditionalOnBooleanProperty("test.heartbeat-prefix-listener")
		HeartbeatPrefix heartbeatPrefix() {
			return new HeartbeatPrefix();
		}

	}

	static class Everything {

		final List<Change> changes = new CopyOnWriteArrayList<>();

		final CountDownLatch entered = new CountDownLatch(1);

		volatile @Nullable CountDownLatch block;

		@PgChangeListener
		void onChange(Change change) throws InterruptedException {
			this.changes.add(change);
			CountDownLatch block = this.block;
			if (block != null) {
				this.block = null;
				this.entered.countDown();
				block.await();
			}
		}

	}

	static class HeartbeatPrefix {

		final List<LogicalMessage> messages = new CopyOnWriteArrayList<>();

		@PgMessageListener(prefix = "postlog.heartbeat")
		void onHeartbeat(LogicalMessage message) {
			this.messages.add(message);
		}

	}

}
