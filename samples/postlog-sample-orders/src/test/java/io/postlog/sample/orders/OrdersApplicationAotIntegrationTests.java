package io.postlog.sample.orders;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample started from its ahead-of-time processed context
 * ({@code -Dspring.aot.enabled=true}, after {@code process-aot}; run with {@code -Paot}),
 * in a JVM of its own on its embedded PostgreSQL: health is UP, and a posted order
 * reaches the read model through its record listener.
 */
@EnabledIfSystemProperty(named = "postlog.sample.aot", matches = "true")
class OrdersApplicationAotIntegrationTests {

	private static final HttpClient http = HttpClient.newHttpClient();

	@Test
	void sampleStartsFromItsAotInitializerAndKeepsItsReadModel() throws Exception {
		assertThat(OrdersApplication.class.getResource("OrdersApplication__ApplicationContextInitializer.class"))
			.as("the AOT initializer process-aot generates")
			.isNotNull();
		int port = freePort();
		int managementPort = freePort();
		Path log = Files.createTempFile("postlog-sample-aot", ".log");
		Process sample = new ProcessBuilder(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Dspring.aot.enabled=true",
						"-cp", System.getProperty("java.class.path"), OrdersApplication.class.getName(),
						"--server.port=" + port, "--management.server.port=" + managementPort))
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			await().atMost(Duration.ofSeconds(120))
				.pollInterval(Duration.ofMillis(500))
				.ignoreExceptions()
				.failFast(() -> !sample.isAlive())
				.until(() -> get(managementPort, "/actuator/health").contains("\"status\":\"UP\""));
			assertThat(Files.readString(log)).contains("Starting AOT-processed OrdersApplication");
			HttpResponse<String> created = http.send(HttpRequest.newBuilder(url(port, "/orders"))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString("{\"customer\":\"grace\",\"amount\":7.25}"))
				.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(created.statusCode()).isEqualTo(201);
			await().atMost(Duration.ofSeconds(30)).until(() -> get(port, "/stats").contains("\"customer\":\"grace\""));
			assertThat(get(port, "/stats")).contains("\"orderCount\":1", "\"total\":7.25");
		}
		catch (Throwable ex) {
			System.err.println("The AOT sample's output:" + File.separator + Files.readString(log));
			throw ex;
		}
		finally {
			sample.destroy();
			if (!sample.waitFor(60, TimeUnit.SECONDS)) {
				sample.destroyForcibly();
			}
		}
	}

	private static String get(int port, String path) throws IOException, InterruptedException {
		return http.send(HttpRequest.newBuilder(url(port, path)).build(), HttpResponse.BodyHandlers.ofString()).body();
	}

	private static URI url(int port, String path) {
		return URI.create("http://127.0.0.1:" + port + path);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
