package io.postlog.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import io.postlog.spring.boot.actuate.PostlogEndpoint;
import io.postlog.spring.boot.autoconfigure.PostlogConnectionDetails;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.TcpProxy;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A whole Boot application with {@code postlog.kafka.enabled=true} on a real server and a
 * real broker: values of every kind of the Values table as the server sends them, in the
 * record's JSON; the relay's health, meters and entry on the {@code postlog} endpoint.
 */
@PostgresTest
class PostlogKafkaApplicationIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	@RegisterExtension
	static final KafkaTestBroker broker = KafkaTestBroker.perClass();

	@Test
	void valuesArriveAsTheReadmeSaysAndHealthMetersAndEndpointShowTheRelay(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE kinds (id int PRIMARY KEY, price numeric(12,2), ratio float8, big int8, "
				+ "raw bytea, at timestamptz, day date, span interval, tags text[], doc jsonb, ref uuid, "
				+ "note text)", "ALTER TABLE kinds ALTER COLUMN note SET STORAGE EXTERNAL");
		SpringApplication application = new SpringApplication(RelayApplication.class);
		application.setDefaultProperties(Map.of("spring.datasource.url", database.jdbcUrl(),
				"spring.datasource.username", database.username(), "spring.kafka.bootstrap-servers",
				broker.bootstrapServers(), "postlog.kafka.enabled", "true", "postlog.kafka.tables", "kinds",
				"postlog.kafka.topic", "cdc.{table}", "postlog.status-interval", "1s", "spring.main.banner-mode", "off",
				"management.endpoints.web.exposure.include", "health,postlog"));
		try (ConfigurableApplicationContext context = application.run()) {
			database.execute("INSERT INTO kinds VALUES (1, 12.50, 'NaN', 9007199254740993, '\\x00ff', "
					+ "'2024-01-02 03:04:05.123456+00', 'infinity', '1 year 2 mons 3 days 04:05:06.000007', "
					+ "ARRAY['a', NULL, 'c'], '{\"b\": [1, 2]}', '6f1c1d6e-4b8e-4d0e-9a55-0d7b1f2b9c01', "
					+ "repeat('x', 10000))", "UPDATE kinds SET price = 13.00 WHERE id = 1");
			List<ConsumerRecord<byte[], byte[]>> records = broker.readAll("cdc.kinds", 2, Duration.ofSeconds(60));
			assertThat(records).hasSize(2);
			JsonNode insert = json.readTree(records.get(0).value());
			assertThat(insert.get("op").stringValue()).isEqualTo("INSERT");
			assertThat(insert.get("table").toString()).isEqualTo("{\"schema\":\"public\",\"name\":\"kinds\"}");
			assertThat(insert.get("before").isNull()).isTrue();
			assertThat(insert.get("after").toString()).isEqualTo("{\"id\":1,\"price\":\"12.50\",\"ratio\":\"NaN\","
					+ "\"big\":9007199254740993,\"raw\":\"AP8=\",\"at\":\"2024-01-02T03:04:05.123456Z\","
					+ "\"day\":\"infinity\",\"span\":{\"months\":14,\"days\":3,\"microseconds\":14706000007},"
					+ "\"tags\":[\"a\",null,\"c\"],\"doc\":\"{\\\"b\\\": [1, 2]}\","
					+ "\"ref\":\"6f1c1d6e-4b8e-4d0e-9a55-0d7b1f2b9c01\",\"note\":\"" + "x".repeat(10000) + "\"}");
			assertThat(new String(records.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":1}");
			JsonNode update = json.readTree(records.get(1).value());
			assertThat(update.get("after").has("note")).isFalse();
			assertThat(update.get("unchangedToast").toString()).isEqualTo("[\"note\"]");
			assertThat(update.get("after").get("price").stringValue()).isEqualTo("13.00");

			PostlogKafkaRelay relay = context.getBean(PostlogKafkaRelay.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> relay.relay().progress().records() == 2);
			HealthIndicator health = context.getBean("postlogKafkaHealthIndicator", HealthIndicator.class);
			Health result = health.health(true);
			assertThat(result.getStatus()).isEqualTo(Status.UP);
			assertThat(result.getDetails()).containsEntry("slot", "postlog_kafka")
				.containsEntry("state", "RUNNING")
				.containsEntry("records", 2L)
				.containsEntry("lastCommitLsn", update.get("commitLsn").stringValue());
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("postlog.kafka.records").tag("slot", "postlog_kafka").functionCounter().count())
				.isEqualTo(2);
			assertThat(meters.get("postlog.changes").tag("slot", "postlog_kafka").counters()).isNotEmpty();
			assertThat(meters.get("postlog.kafka.delay").tag("slot", "postlog_kafka").timer().count()).isPositive();
			assertThat(meters.get("postlog.kafka.last-commit-lsn").gauge().value())
				.isEqualTo((double) io.postlog.Lsn.parse(update.get("commitLsn").stringValue()).value());

			PostlogEndpoint.PostlogDescriptor described = context.getBean(PostlogEndpoint.class).postlog();
			PostlogEndpoint.ConsumerDescriptor kafka = described.consumers()
				.stream()
				.filter((consumer) -> consumer.group().equals("kafka"))
				.findFirst()
				.orElseThrow();
			assertThat(kafka.state()).isEqualTo("RUNNING");
			assertThat(kafka.slot()).isInstanceOfSatisfying(PostlogEndpoint.SlotDescriptor.class, (slot) -> {
				assertThat(slot.name()).isEqualTo("postlog_kafka");
				assertThat(slot.exists()).isTrue();
			});
			assertThat(kafka.publication()).isInstanceOfSatisfying(PostlogEndpoint.PublicationDescriptor.class,
					(publication) -> assertThat(publication.tables()).containsExactly("public.kinds"));
			assertThat(kafka.lastCommitTime()).isEqualTo(update.get("commitTime").stringValue());
			assertThat(kafka.details()).containsEntry("offsetsTopic", "postlog.offsets")
				.containsEntry("lastCommitLsn", update.get("commitLsn").stringValue())
				.containsEntry("records", 2L)
				.containsEntry("fences", 0L)
				.containsKey("lastKafkaCommit");
			assertThat(described.server()).isInstanceOf(PostlogEndpoint.ServerDescriptor.class);
			assertThat(((PostlogEndpoint.ServerDescriptor) described.server()).slots())
				.filteredOn(PostlogEndpoint.ServerSlotDescriptor::postlog)
				.extracting(PostlogEndpoint.ServerSlotDescriptor::name)
				.contains("postlog_kafka");
		}
	}

	@Test
	void relayConnectsWithTheApplicationsPostlogConnectionDetails(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE proxied (id int PRIMARY KEY, note text)");
		try (TcpProxy proxy = TcpProxy.start(database.server())) {
			SpringApplication application = new SpringApplication(RelayApplication.class);
			// The DataSource reaches the server directly; only the connection details go
			// through the proxy.
			application.addInitializers((context) -> context.getBeanFactory()
				.registerSingleton("proxiedConnectionDetails",
						new ProxiedConnectionDetails(proxy.jdbcUrl(database.name()), database.username())));
			application.setDefaultProperties(Map.of("spring.datasource.url", database.jdbcUrl(),
					"spring.datasource.username", database.username(), "spring.kafka.bootstrap-servers",
					broker.bootstrapServers(), "postlog.kafka.enabled", "true", "postlog.kafka.tables", "proxied",
					"postlog.kafka.topic", "proxied.{table}", "postlog.kafka.slot.name", "postlog_kafka_proxied",
					"postlog.kafka.publication.name", "postlog_kafka_proxied", "spring.main.banner-mode", "off"));
			try (ConfigurableApplicationContext context = application.run()) {
				PostlogKafkaRelay relay = context.getBean(PostlogKafkaRelay.class);
				await().atMost(Duration.ofSeconds(30))
					.until(() -> relay.relay().state() == io.postlog.consumer.ConsumerState.RUNNING);
				assertThat(proxy.openConnections()).isPositive();
				long forwarded = proxy.bytesForwarded();
				database.execute("INSERT INTO proxied VALUES (1, 'through the proxy')");
				List<ConsumerRecord<byte[], byte[]>> records = broker.readAll("proxied.proxied", 1,
						Duration.ofSeconds(60));
				assertThat(records).hasSize(1);
				assertThat(json.readTree(records.get(0).value()).get("after").toString())
					.isEqualTo("{\"id\":1,\"note\":\"through the proxy\"}");
				assertThat(proxy.bytesForwarded()).isGreaterThan(forwarded);
			}
		}
	}

	/**
	 * An application's own connection details, as Testcontainers' or Docker Compose's
	 * would be.
	 */
	record ProxiedConnectionDetails(String getJdbcUrl, String getUsername) implements PostlogConnectionDetails {

		@Override
		public @Nullable String getPassword() {
			return null;
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RelayApplication {

	}

}
