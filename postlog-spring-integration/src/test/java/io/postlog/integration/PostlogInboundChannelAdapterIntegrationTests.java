package io.postlog.integration;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.consumer.SubscriptionState;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.dsl.IntegrationFlow;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHandler;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.MessagingException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The inbound channel adapter in Boot applications on a real server: a flow gets every
 * change once, in commit order, with its headers, and the slot moves past what the flow
 * returned from; a flow that fails holds the slot at the change it failed, and started
 * again the listener gets that change and the rest once; an error flow (the
 * auto-configured adapter's error channel) handles a failure and the change is
 * acknowledged.
 */
@PostgresTest
class PostlogInboundChannelAdapterIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	static final List<Message<?>> received = new CopyOnWriteArrayList<>();

	static final List<Message<?>> errors = new CopyOnWriteArrayList<>();

	static final AtomicBoolean broken = new AtomicBoolean();

	@BeforeEach
	void reset() {
		received.clear();
		errors.clear();
		broken.set(false);
	}

	@Test
	void flowGetsEveryChangeOnceInCommitOrderWithItsHeadersAndTheSlotMovesOn(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE orders (id int PRIMARY KEY, total int NOT NULL)");
		try (ConfigurableApplicationContext context = run(FlowApplication.class, database, "orders",
				"postlog.slot.name=si_order", "postlog.publication.name=si_order")) {
			for (int i = 0; i < 5; i++) {
				database.execute("INSERT INTO orders SELECT g, 1 FROM generate_series(" + (i * 20 + 1) + ", "
						+ (i * 20 + 20) + ") g");
			}
			database.execute("UPDATE orders SET total = total + 1");
			for (int id = 1; id <= 10; id++) {
				database.execute("DELETE FROM orders WHERE id = " + id);
			}
			Lsn written = currentLsn(database);
			await().atMost(TIMEOUT).until(() -> received.size() >= 210);
			await().atMost(TIMEOUT).until(() -> confirmedFlush(database, "si_order").compareTo(written) >= 0);
			assertThat(received).hasSize(210);
			List<Change> changes = new ArrayList<>();
			for (Message<?> message : received) {
				Change change = (Change) message.getPayload();
				MessageHeaders headers = message.getHeaders();
				assertThat(headers.get(PostlogHeaders.CHANGE_ID)).isEqualTo(change.id());
				assertThat(headers.get(PostlogHeaders.COMMIT_LSN)).isEqualTo(change.commitLsn());
				assertThat(headers.get(PostlogHeaders.TABLE)).isEqualTo(TableId.parse("orders"));
				assertThat(headers.get(PostlogHeaders.OPERATION)).isEqualTo(change.operation());
				assertThat(headers.get(PostlogHeaders.GROUP)).isEqualTo("default");
				changes.add(change);
			}
			assertThat(changes).extracting(Change::id).doesNotHaveDuplicates();
			assertThat(changes).isSortedAccordingTo(
					Comparator.comparing(Change::commitLsn).thenComparing(Change::index, Comparator.naturalOrder()));
			assertThat(changes.subList(0, 100)).extracting((change) -> change.row().get("id"))
				.containsExactlyElementsOf(range(1, 100));
			assertThat(changes.subList(100, 200)).allMatch((change) -> change.operation() == Operation.UPDATE
					&& Integer.valueOf(2).equals(change.row().get("total")));
			assertThat(changes.subList(200, 210)).extracting((change) -> change.before().get("id"))
				.containsExactlyElementsOf(range(1, 10));
		}
	}

	@Test
	void nothingIsAcknowledgedPastAChangeTheFlowFailedAndStartedAgainTheListenerGetsItOnce(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE parcels (id int PRIMARY KEY, state text NOT NULL)");
		broken.set(true);
		try (ConfigurableApplicationContext context = run(FlowApplication.class, database, "parcels",
				"postlog.slot.name=si_fail", "postlog.publication.name=si_fail", "postlog.retry.initial-interval=20ms",
				"postlog.retry.max-attempts=2")) {
			PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
			database.execute("INSERT INTO parcels VALUES (1, 'ok')");
			await().atMost(TIMEOUT).until(() -> received.size() == 1);
			database.execute("INSERT INTO parcels VALUES (2, 'poison')");
			Lsn failedAt = currentLsn(database);
			for (int id = 3; id <= 10; id++) {
				database.execute("INSERT INTO parcels VALUES (" + id + ", 'ok')");
			}
			await().atMost(TIMEOUT).until(() -> registry.listener("orders-flow").state() == SubscriptionState.STOPPED);
			assertThat(ids(received)).containsExactly(1);
			assertThat(confirmedFlush(database, "si_fail")).isLessThanOrEqualTo(failedAt);

			broken.set(false);
			registry.start("orders-flow");
			await().atMost(TIMEOUT).until(() -> received.size() >= 10);
			Lsn written = currentLsn(database);
			await().atMost(TIMEOUT).until(() -> confirmedFlush(database, "si_fail").compareTo(written) >= 0);
			assertThat(ids(received)).containsExactlyElementsOf(range(1, 10));
		}
	}

	@Test
	void autoConfiguredAdapterSendsAFailureToItsErrorChannelAndTheChangeIsAcknowledged(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE letters (id int PRIMARY KEY, state text NOT NULL)");
		broken.set(true);
		try (ConfigurableApplicationContext context = run(ChannelApplication.class, database, "letters",
				"postlog.slot.name=si_errors", "postlog.publication.name=si_errors",
				"postlog.integration.inbound.channel=changes", "postlog.integration.inbound.error-channel=changeErrors",
				"postlog.integration.inbound.tables=letters", "postlog.integration.inbound.id=letters-flow",
				"postlog.integration.inbound.operations=insert")) {
			database.execute("INSERT INTO letters VALUES (1, 'ok')", "INSERT INTO letters VALUES (2, 'poison')",
					"INSERT INTO letters VALUES (3, 'ok')", "UPDATE letters SET state = 'sent'");
			Lsn written = currentLsn(database);
			await().atMost(TIMEOUT).until(() -> received.size() == 2 && errors.size() == 1);
			await().atMost(TIMEOUT).until(() -> confirmedFlush(database, "si_errors").compareTo(written) >= 0);
			assertThat(ids(received)).containsExactly(1, 3);
			MessagingException failure = (MessagingException) errors.get(0).getPayload();
			Change failed = (Change) failure.getFailedMessage().getPayload();
			assertThat(failed.row().get("id")).isEqualTo(2);
			assertThat(failure.getFailedMessage().getHeaders().get(PostlogHeaders.CHANGE_ID)).isEqualTo(failed.id());
			assertThat(context.getBean(PostlogListenerRegistry.class).listener("letters-flow").state())
				.isEqualTo(SubscriptionState.RUNNING);
		}
	}

	private static List<Object> ids(List<Message<?>> messages) {
		return messages.stream().map((message) -> ((Change) message.getPayload()).row().get("id")).toList();
	}

	private static List<Object> range(int from, int to) {
		List<Object> ids = new ArrayList<>();
		for (int id = from; id <= to; id++) {
			ids.add(id);
		}
		return ids;
	}

	private static ConfigurableApplicationContext run(Class<?> application, PostgresDatabase database, String table,
			String... properties) {
		List<String> args = new ArrayList<>(List.of("--spring.datasource.url=" + database.jdbcUrl(),
				"--spring.datasource.username=" + database.username(), "--spring.main.banner-mode=off",
				"--test.table=" + table, "--postlog.status-interval=1s"));
		for (String property : properties) {
			args.add("--" + property);
		}
		return SpringApplication.run(application, args.toArray(String[]::new));
	}

	static Lsn currentLsn(PostgresDatabase database) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT pg_current_wal_lsn()::text")) {
			rows.next();
			return Lsn.parse(rows.getString(1));
		}
	}

	static Lsn confirmedFlush(PostgresDatabase database, String slot) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement
					.executeQuery("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '"
							+ slot + "'")) {
			rows.next();
			return Lsn.parse(rows.getString(1));
		}
	}

	static void handle(Message<?> message) {
		Change change = (Change) message.getPayload();
		if (broken.get() && "poison".equals(change.row().get("state"))) {
			throw new IllegalStateException("cannot ship");
		}
		received.add(message);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class FlowApplication {

		@Bean
		IntegrationFlow ordersFlow(org.springframework.core.env.Environment environment) {
			PostlogInboundChannelAdapter adapter = new PostlogInboundChannelAdapter();
			adapter.setListenerId("orders-flow");
			adapter.setTables(environment.getRequiredProperty("test.table"));
			return IntegrationFlow.from(adapter).handle(PostlogInboundChannelAdapterIntegrationTests::handle).get();
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ChannelApplication {

		@Bean
		IntegrationFlow changesFlow() {
			return IntegrationFlow.from("changes").handle(PostlogInboundChannelAdapterIntegrationTests::handle).get();
		}

		@Bean
		IntegrationFlow changeErrorsFlow() {
			return IntegrationFlow.from("changeErrors").handle((MessageHandler) errors::add).get();
		}

	}

}
