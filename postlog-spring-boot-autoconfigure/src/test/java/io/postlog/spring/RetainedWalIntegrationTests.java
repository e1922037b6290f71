package io.postlog.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.postlog.Change;
import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A listener blocked while 48 MB of WAL are written under
 * {@code max_slot_wal_keep_size=64MB}: health DOWN naming the retained WAL, the meters
 * show it, and health is UP again once the listener returns and the slot moves on.
 */
class RetainedWalIntegrationTests {

	private static final Logger logger = LoggerFactory.getLogger(RetainedWalIntegrationTests.class);

	private static final long MB = 1024 * 1024;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void retainedWalPastHalfOfMaxSlotWalKeepSizeIsDownUntilItDrains() throws Exception {
		// Asked of the shared server of the same binaries: an older server refuses to
		// start
		// with the setting at all.
		assumeTrue(EmbeddedPostgresServer.shared().serverVersion() >= 130000,
				"max_slot_wal_keep_size needs PostgreSQL 13");
		try (EmbeddedPostgresServer server = EmbeddedPostgresServer.builder()
			.setting("max_slot_wal_keep_size", "64MB")
			.start()) {
			PostgresDatabase database = server.createDatabase();
			database.execute("CREATE TABLE orders (id int PRIMARY KEY)", "CREATE TABLE filler (v text)");
			try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(BlockedApplication.class,
					database, "postlog.slot.name=retained", "postlog.tables=orders")) {
				Blocked blocked = context.getBean(Blocked.class);
				database.execute("SELECT pg_create_logical_replication_slot('forgotten', 'test_decoding')");
				Instant forgottenCreated = Instant.now();
				database.execute("INSERT INTO orders VALUES (1)");
				assertThat(blocked.entered.await(30, TimeUnit.SECONDS)).isTrue();
				long written = writeWal(database, 48 * MB);
				assertThat(written).isGreaterThanOrEqualTo(48 * MB);

				JsonNode down = awaitHealth(context, "DOWN");
				assertThat(down.get("details").get("reasons").toString()).contains(
						"replication slot 'retained' retains", "of max_slot_wal_keep_size (64.0 MB)",
						"above postlog.health.max-retained-ratio (0.5)");
				assertThat(down.get("details").get("retainedBytes").asLong()).isGreaterThan(32 * MB);
				assertThat(down.get("details").get("maxSlotWalKeepSize").asLong()).isEqualTo(64 * MB);
				assertThat(down.get("details").get("safeWalSize").asLong()).isLessThan(32 * MB);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
					assertThat(meters.get("postlog.slot.retained").tag("slot", "retained").gauge().value())
						.isGreaterThan(32 * MB);
					assertThat(meters.get("postlog.slot.safe-wal-size").tag("slot", "retained").gauge().value())
						.isLessThan(32 * MB);
				});

				// The section is the background reading: a call waits 250 ms for a new
				// one
				// and otherwise shows the one before, which readAt dates.
				JsonNode[] section = new JsonNode[1];
				await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
					section[0] = JsonMapper.builder()
						.build()
						.readTree(get(context, "/actuator/postlog").body())
						.get("server");
					assertThat(Instant.parse(section[0].get("readAt").asString())).isAfter(forgottenCreated);
				});
				JsonNode server0 = section[0];
				List<String> own = server0.get("slots")
					.valueStream()
					.filter((slot) -> slot.get("postlog").asBoolean())
					.map((slot) -> slot.get("name").asString())
					.toList();
				assertThat(own).as("the endpoint's server section: %s", server0).containsExactly("retained");
				JsonNode forgotten = server0.get("slots")
					.valueStream()
					.filter((slot) -> slot.get("name").asString().equals("forgotten"))
					.findFirst()
					.orElseThrow();
				assertThat(forgotten.get("plugin").asString()).isEqualTo("test_decoding");
				assertThat(forgotten.get("active").asBoolean()).isFalse();
				assertThat(forgotten.get("retainedBytes").asLong()).isGreaterThan(32 * MB);
				assertThat(server0.get("settings").get("maxSlotWalKeepSize").asLong()).isEqualTo(64 * MB);
				database.execute("SELECT pg_drop_replication_slot('forgotten')");

				logger.info(
						"Blocked listener, {} bytes of WAL written: health DOWN with {} bytes retained, safe_wal_size {}",
						written, down.get("details").get("retainedBytes").asLong(),
						down.get("details").get("safeWalSize").asLong());
				blocked.release.countDown();
				await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
					database.execute("INSERT INTO orders SELECT coalesce(max(id), 0) + 1 FROM orders", "CHECKPOINT");
					assertThat(health(context).get("status").asString()).isEqualTo("UP");
				});
				long drained = health(context).get("details").get("retainedBytes").asLong();
				assertThat(drained).isLessThan(32 * MB);
				logger.info("Listener released: health UP with {} bytes retained", drained);
			}
		}
	}

	private static long writeWal(PostgresDatabase database, long bytes) throws Exception {
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			long start = lsn(statement);
			while (lsn(statement) - start < bytes) {
				statement.execute("INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, 5000)");
			}
			return lsn(statement) - start;
		}
	}

	private static long lsn(Statement statement) throws Exception {
		try (var row = statement.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")) {
			row.next();
			return row.getLong(1);
		}
	}

	private JsonNode awaitHealth(ConfigurableApplicationContext context, String status) {
		JsonNode[] last = new JsonNode[1];
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
			last[0] = health(context);
			assertThat(last[0].get("status").asString()).isEqualTo(status);
		});
		return last[0];
	}

	private JsonNode health(ConfigurableApplicationContext context) throws Exception {
		return JsonMapper.builder().build().readTree(get(context, "/actuator/health/postlog/default").body());
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class BlockedApplication {

		@Bean
		Blocked blocked() {
			return new Blocked();
		}

	}

	static class Blocked {

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		@PgChangeListener(tables = "orders")
		void onOrder(Change change) throws InterruptedException {
			this.entered.countDown();
			this.release.await(120, TimeUnit.SECONDS);
		}

	}

}
