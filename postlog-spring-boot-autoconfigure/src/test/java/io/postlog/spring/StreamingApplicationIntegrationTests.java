package io.postlog.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import io.micrometer.core.instrument.MeterRegistry;
import io.postlog.Change;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code postlog.streaming.enabled=true} in a whole application on a real server that
 * streams from a few thousand rows on: a large transaction reaches the listener, the
 * consumer's spill and the server's statistics show on the meters and the endpoint, and
 * no spill file is left.
 */
@PostgresTest(settings = "logical_decoding_work_mem=64kB")
class StreamingApplicationIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	@TempDir
	Path spillRoot;

	@BeforeAll
	static void streamingServer() {
		String version = System.getProperty("postlog.postgres.version", "17");
		Assumptions.assumeTrue(Integer.parseInt(version.split("\\.")[0]) >= 14,
				"pgoutput streams in-progress transactions since PostgreSQL 14");
	}

	@Test
	void largeTransactionIsStreamedSpilledAndDeliveredWithItsSpillOnMetersAndEndpoint(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE big (id int PRIMARY KEY, payload text)");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(BigApplication.class,
				database, "postlog.slot.name=streamed", "postlog.streaming.enabled=true",
				"postlog.streaming.memory=64KB", "postlog.streaming.spill-directory=" + this.spillRoot)) {
			database.execute("INSERT INTO big SELECT g, md5(g::text) FROM generate_series(1, 20000) g");
			CaughtUp.await(context, TIMEOUT);
			assertThat(context.getBean(Big.class).count).hasValue(20000);

			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("postlog.streaming.spilled").tag("slot", "streamed").functionCounter().count())
				.isPositive();
			assertThat(meters.get("postlog.streaming.spill-size").gauge().value()).isZero();
			await().atMost(TIMEOUT)
				.until(() -> meters.get("postlog.slot.server-spill").tag("kind", "stream").gauge().value() > 0);
			assertThat(meters.get("postlog.slot.server-spill").tag("kind", "spill").gauge().value()).isZero();

			HttpResponse<String> endpoint = HttpClient.newHttpClient()
				.send(HttpRequest
					.newBuilder(URI.create("http://localhost:"
							+ ((WebServerApplicationContext) context).getWebServer().getPort() + "/actuator/postlog"))
					.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(endpoint.statusCode()).isEqualTo(200);
			JsonNode streaming = JsonMapper.builder()
				.build()
				.readTree(endpoint.body())
				.get("consumers")
				.get(0)
				.get("streaming");
			assertThat(streaming.get("enabled").asBoolean()).isTrue();
			assertThat(streaming.get("spilledBytes").asLong()).isZero();
			assertThat(streaming.get("spilledBytesTotal").asLong()).isPositive();
			assertThat(streaming.get("serverSpillBytes").asLong()).isZero();
			assertThat(streaming.get("serverStreamBytes").asLong()).isPositive();
		}
		try (Stream<Path> left = Files.walk(this.spillRoot)) {
			assertThat(left).containsExactly(this.spillRoot);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class BigApplication {

		@Bean
		Big big() {
			return new Big();
		}

	}

	static class Big {

		final AtomicLong count = new AtomicLong();

		@PgChangeListener(tables = "big")
		void onChange(Change change) {
			this.count.incrementAndGet();
		}

	}

}
