package io.postlog.spring.boot.autoconfigure;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Change;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.SlotLostException;
import io.postlog.spring.PgChangeListener;
import io.postlog.consumer.ConsumerState;
import io.postlog.spring.PostlogConsumerGroup;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogSlotLostEvent;
import io.postlog.spring.CaughtUp;
import io.postlog.spring.boot.health.PostlogHealthContributor;
import io.postlog.spring.boot.health.PostlogHealthIndicator;
import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.TcpProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A slot the server invalidated ({@code max_slot_wal_keep_size} exceeded while nobody
 * read it): under {@code postlog.slot.on-lost=fail} start-up fails with the analysis;
 * under {@code recreate} the application starts on a new slot and new changes arrive. The
 * same while the application runs: its replication connection (through a
 * {@link TcpProxy}) is cut and kept out while the slot is lost, and the reconnect finds
 * it lost. The event is published in every case, before postlog acts.
 */
@ExtendWith(OutputCaptureExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SlotLostIntegrationTests {

	private static final List<PostlogSlotLostEvent> events = new CopyOnWriteArrayList<>();

	private EmbeddedPostgresServer server;

	private PostgresDatabase database;

	@BeforeAll
	void startServer() {
		// Asked of the shared server of the same binaries: an older server refuses to
		// start
		// with the setting at all.
		assumeTrue(EmbeddedPostgresServer.shared().serverVersion() >= 130000,
				"max_slot_wal_keep_size needs PostgreSQL 13");
		this.server = EmbeddedPostgresServer.builder().setting("max_slot_wal_keep_size", "64MB").start();
		this.database = this.server.createDatabase();
		this.database.execute("CREATE TABLE orders (id int PRIMARY KEY)", "CREATE TABLE filler (v text)");
	}

	@AfterAll
	void stopServer() {
		if (this.server != null) {
			this.server.close();
		}
	}

	@BeforeEach
	void clearEvents() {
		events.clear();
	}

	@Test
	void underFailStartUpFailsWithTheAnalysisAndTheEvent(CapturedOutput output) throws Exception {
		loseSlot("lost_fail");
		SpringApplication application = application();
		assertThatException().isThrownBy(() -> application.run(args("lost_fail")).close());
		assertThat(output).contains("APPLICATION FAILED TO START",
				"postlog's replication slot is lost and can no longer stream: Replication slot 'lost_fail' is lost: "
						+ "the server invalidated it (wal_status=lost",
				"usually because it retained more WAL than max_slot_wal_keep_size", "set postlog.slot.on-lost=recreate",
				"SELECT pg_drop_replication_slot('lost_fail')");
		assertThat(events).singleElement().satisfies((event) -> {
			assertThat(event.slotName()).isEqualTo("lost_fail");
			assertThat(event.action()).isEqualTo(LostSlotAction.FAIL);
			assertThat(event.loss().reason()).isEqualTo(SlotLostException.Reason.INVALIDATED);
		});
		assertThat(slot("lost_fail").isLost()).isTrue();
	}

	@Test
	void underRecreateTheApplicationStartsOnANewSlotAndNewChangesArrive(CapturedOutput output) throws Exception {
		loseSlot("lost_recreate");
		try (ConfigurableApplicationContext context = application()
			.run(args("lost_recreate", "--postlog.slot.on-lost=recreate"))) {
			assertThat(events).singleElement()
				.satisfies((event) -> assertThat(event.action()).isEqualTo(LostSlotAction.RECREATE));
			assertThat(output).contains("(postlog.slot.on-lost=recreate): dropping it and creating a new slot",
					"Replication slot 'lost_recreate' was created again after it was lost (INVALIDATED)",
					"are SKIPPED and will never be delivered");
			assertThat(slot("lost_recreate").isLost()).isFalse();
			this.database.execute("INSERT INTO orders VALUES (42)");
			CaughtUp.await(context, Duration.ofSeconds(30));
			Orders orders = context.getBean(Orders.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> orders.ids.contains(42));
		}
	}

	@Test
	void whileRunningUnderRecreateAReconnectToALostSlotPublishesTheEventAndNewChangesArrive(CapturedOutput output)
			throws Exception {
		try (TcpProxy proxy = TcpProxy.start(this.server);
				ConfigurableApplicationContext context = application()
					.run(args("run_recreate", "--postlog.slot.on-lost=recreate", proxied(proxy)))) {
			Orders orders = context.getBean(Orders.class);
			this.database.execute("INSERT INTO orders VALUES (100)");
			await().atMost(Duration.ofSeconds(30)).until(() -> orders.ids.contains(100));
			disconnect(proxy, "run_recreate");
			invalidate("run_recreate");
			proxy.refuseNewConnections(false);
			await().atMost(Duration.ofSeconds(60)).until(() -> !events.isEmpty());
			assertThat(events).singleElement().satisfies((event) -> {
				assertThat(event.action()).isEqualTo(LostSlotAction.RECREATE);
				assertThat(event.getSource()).isInstanceOf(PostlogConsumerGroup.class);
				assertThat(event.loss().reason()).isEqualTo(SlotLostException.Reason.INVALIDATED);
			});
			// The event comes before the new slot: a change committed in between is
			// skipped.
			await().atMost(Duration.ofSeconds(30))
				.until(() -> output.getOut().contains("Replication slot 'run_recreate' was created again"));
			this.database.execute("INSERT INTO orders VALUES (101)");
			await().atMost(Duration.ofSeconds(30)).until(() -> orders.ids.contains(101));
			assertThat(output).contains("Replication slot 'run_recreate' was created again after it was lost",
					"are SKIPPED and will never be delivered");
			assertThat(context.getBean(PostlogListenerRegistry.class).state()).isEqualTo(ConsumerState.RUNNING);
		}
	}

	@Test
	void whileRunningUnderFailAReconnectToALostSlotPublishesTheEventAndHealthIsDown() throws Exception {
		try (TcpProxy proxy = TcpProxy.start(this.server);
				ConfigurableApplicationContext context = application()
					.run(args("run_fail", proxied(proxy), "--management.endpoint.health.show-details=always"))) {
			PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> registry.state() == ConsumerState.RUNNING);
			disconnect(proxy, "run_fail");
			invalidate("run_fail");
			proxy.refuseNewConnections(false);
			await().atMost(Duration.ofSeconds(60)).until(() -> registry.state() == ConsumerState.FAILED);
			assertThat(events).singleElement()
				.satisfies((event) -> assertThat(event.action()).isEqualTo(LostSlotAction.FAIL));
			// The group records a state's cause when the consumer tells its listeners,
			// just after the state changed: until then the failure of the refused
			// reconnect before it is the latest.
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(registry.lastFailure()).isInstanceOf(SlotLostException.class));
			Health health = ((PostlogHealthIndicator) context.getBean(PostlogHealthContributor.class)
				.getContributor("default")).health(true);
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails().get("reasons").toString()).contains("the consumer is FAILED",
					"replication slot 'run_fail' is lost (wal_status=lost");
		}
	}

	private String proxied(TcpProxy proxy) {
		return "--postlog.datasource.url=" + proxy.jdbcUrl(this.database.name());
	}

	/**
	 * Cuts the replication connection and keeps new ones out until the server has let go
	 * of the slot.
	 */
	private void disconnect(TcpProxy proxy, String name) {
		proxy.refuseNewConnections(true);
		proxy.cutConnections();
		await().atMost(Duration.ofSeconds(30)).until(() -> !slot(name).active());
	}

	private void loseSlot(String name) throws Exception {
		this.database.execute("SELECT pg_create_logical_replication_slot('" + name + "', 'pgoutput')");
		invalidate(name);
	}

	private void invalidate(String name) throws Exception {
		try (Connection connection = this.database.connect(); Statement statement = connection.createStatement()) {
			for (int i = 0; i < 20; i++) {
				statement.execute("INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, 5000)");
			}
			for (int attempt = 0; attempt < 5 && !slot(name).isLost(); attempt++) {
				statement.execute("CHECKPOINT");
				statement.execute("SELECT pg_switch_wal()");
			}
		}
		assertThat(slot(name).isLost()).as("slot %s invalidated", name).isTrue();
	}

	private SlotInfo slot(String name) throws Exception {
		try (Connection connection = this.database.connect()) {
			return new ReplicationAdmin(connection).slot(name).orElseThrow();
		}
	}

	private static SpringApplication application() {
		SpringApplication application = new SpringApplication(LostSlotApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		return application;
	}

	private String[] args(String slot, String... extra) {
		List<String> args = new ArrayList<>(List.of("--spring.datasource.url=" + this.database.jdbcUrl(),
				"--spring.datasource.username=postgres", "--spring.main.banner-mode=off", "--postlog.slot.name=" + slot,
				"--postlog.publication.name=" + slot + "_pub", "--postlog.datasource.username=postgres",
				"--postlog.status-interval=500ms", "--postlog.retry.initial-interval=100ms",
				"--postlog.retry.max-interval=500ms"));
		args.addAll(List.of(extra));
		return args.toArray(String[]::new);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class LostSlotApplication {

		@Bean
		Orders orders() {
			return new Orders();
		}

		@Bean
		ApplicationListener<PostlogSlotLostEvent> slotLostListener() {
			return events::add;
		}

	}

	static class Orders {

		final List<Integer> ids = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "orders")
		void onOrder(Change change) {
			this.ids.add(change.after().get("id", Integer.class));
		}

	}

}
