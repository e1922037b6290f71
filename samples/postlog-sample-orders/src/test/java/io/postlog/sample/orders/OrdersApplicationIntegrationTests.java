package io.postlog.sample.orders;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;

import io.micrometer.core.instrument.MeterRegistry;
import io.postlog.spring.boot.test.PostlogTestUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The sample end to end on its own embedded PostgreSQL, as a newcomer runs it.
 */
class OrdersApplicationIntegrationTests {

	private static ConfigurableApplicationContext context;

	private static final HttpClient http = HttpClient.newHttpClient();

	@BeforeAll
	static void start() {
		context = OrdersApplication.application().run("--server.port=0", "--management.server.port=0");
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	@Test
	void runsOnItsOwnEmbeddedPostgresWithLogicalDecoding() {
		JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
		assertThat(jdbc.queryForObject("SHOW wal_level", String.class)).isEqualTo("logical");
		assertThat(context.getEnvironment().getProperty("spring.datasource.url"))
			.startsWith("jdbc:postgresql://127.0.0.1:");
	}

	@Test
	void postedOrderReachesTheReadModelAndTheMetrics() throws Exception {
		HttpResponse<String> created = send(HttpRequest.newBuilder(url("/orders"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"customer\":\"edsger\",\"amount\":42.50}")));
		assertThat(created.statusCode()).isEqualTo(201);

		PostlogTestUtils.awaitCaughtUp(context, Duration.ofSeconds(30));
		assertThat(get("/stats")).contains("\"customer\":\"edsger\"", "\"orderCount\":1", "\"total\":42.5");

		MeterRegistry meters = context.getBean(MeterRegistry.class);
		assertThat(meters.get("postlog.changes").tag("table", "public.orders").counter().count())
			.isGreaterThanOrEqualTo(1);
		assertThat(get("/actuator/health")).contains("\"status\":\"UP\"");
		assertThat(get("/actuator/postlog")).contains("orders_sample");
	}

	@Test
	void actuatorIsServedOnItsOwnPortOnLoopbackOnly() throws Exception {
		assertThat(
				send(HttpRequest
					.newBuilder(URI.create("http://127.0.0.1:"
							+ context.getEnvironment().getProperty("local.server.port") + "/actuator/postlog"))
					.GET()).statusCode())
			.isEqualTo(404);
		assertThat(get("/actuator/postlog")).contains("orders_sample");
		InetAddress other = nonLoopbackAddress();
		assumeTrue(other != null, "this machine has no address but loopback");
		int port = Integer.parseInt(context.getEnvironment().getProperty("local.management.port"));
		try (Socket socket = new Socket()) {
			assertThatException().isThrownBy(() -> socket.connect(new InetSocketAddress(other, port), 2000))
				.isInstanceOf(java.io.IOException.class);
		}
	}

	private static InetAddress nonLoopbackAddress() throws Exception {
		for (NetworkInterface network : Collections.list(NetworkInterface.getNetworkInterfaces())) {
			if (!network.isUp() || network.isLoopback()) {
				continue;
			}
			for (InetAddress address : Collections.list(network.getInetAddresses())) {
				if (address instanceof Inet4Address && !address.isLoopbackAddress()) {
					return address;
				}
			}
		}
		return null;
	}

	private static URI url(String path) {
		String port = path.startsWith("/actuator") ? "local.management.port" : "local.server.port";
		return URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty(port) + path);
	}

	private static String get(String path) throws Exception {
		HttpResponse<String> response = send(HttpRequest.newBuilder(url(path)).GET());
		assertThat(response.statusCode()).isEqualTo(200);
		return response.body();
	}

	private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
		return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
	}

}
