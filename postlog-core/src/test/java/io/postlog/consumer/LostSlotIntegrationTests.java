package io.postlog.consumer;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.SlotLostException;
import io.postlog.snapshot.SnapshotConnections;
import io.postlog.snapshot.SnapshotOptions;
import io.postlog.stream.ReplicationConnectionFactory;
import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.TcpProxy;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A slot the server invalidated ({@code max_slot_wal_keep_size} exceeded while nobody
 * read it), or dropped, is never recreated silently: at start, {@code FAIL} makes
 * {@code start()} throw the {@link SlotLostException} and {@code RECREATE} streams from a
 * new slot; while running, the consumer's reconnect to a slot lost meanwhile (its
 * replication connection cut through a {@link TcpProxy} and refused while the slot is
 * lost) ends in {@code FAILED} with the loss, or in a new slot that new changes arrive
 * from. With an initial snapshot, {@code RECREATE} only drops the lost slot and a new
 * snapshot creates it, delivering the table's rows again, at start and on a reconnect.
 * The listener hears of every loss first.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LostSlotIntegrationTests {

	private @Nullable EmbeddedPostgresServer server;

	private PostgresDatabase database;

	@BeforeAll
	void startServer() {
		this.server = EmbeddedPostgresServer.builder().setting("max_slot_wal_keep_size", "64MB").start();
		assumeTrue(this.server.serverVersion() >= 130000, "max_slot_wal_keep_size needs PostgreSQL 13");
		this.database = this.server.createDatabase();
		this.database.execute("CREATE TABLE orders (id int PRIMARY KEY)", "CREATE TABLE filler (v text)");
	}

	@AfterAll
	void stopServer() {
		if (this.server != null) {
			this.server.close();
		}
	}

	@Test
	void atStartUnderFailStartThrowsTheLossAfterTellingTheListener() throws Exception {
		createSlot("start_fail");
		loseSlot("start_fail");
		Losses losses = new Losses();
		ReplicationConsumer consumer = builder("start_fail", LostSlotAction.FAIL, losses)
			.jdbcUrl(this.database.jdbcUrl(), this.database.username(), null)
			.changeHandler((change) -> {
			})
			.build();
		assertThatExceptionOfType(SlotLostException.class).isThrownBy(consumer::start).satisfies((loss) -> {
			assertThat(loss.slotName()).isEqualTo("start_fail");
			assertThat(loss.reason()).isEqualTo(SlotLostException.Reason.INVALIDATED);
			assertThat(loss.walStatus()).isEqualTo("lost");
		});
		assertThat(consumer.state()).isEqualTo(ConsumerState.FAILED);
		assertThat(losses.actions).containsExactly(LostSlotAction.FAIL);
		assertThat(slot("start_fail").isLost()).isTrue();
		consumer.stop();
	}

	@Test
	void atStartUnderRecreateTheConsumerStreamsFromANewSlot() throws Exception {
		createSlot("start_recreate");
		loseSlot("start_recreate");
		Losses losses = new Losses();
		List<Integer> ids = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = builder("start_recreate", LostSlotAction.RECREATE, losses)
			.jdbcUrl(this.database.jdbcUrl(), this.database.username(), null)
			.changeHandler((change) -> ids.add(id(change)))
			.build();
		consumer.start();
		try {
			assertThat(losses.actions).containsExactly(LostSlotAction.RECREATE);
			SlotInfo fresh = slot("start_recreate");
			assertThat(fresh.isLost()).isFalse();
			assertThat(fresh.confirmedFlushLsn()).isGreaterThan(losses.losses.get(0).lastConfirmedLsn());
			this.database.execute("INSERT INTO orders VALUES (1)");
			await().atMost(Duration.ofSeconds(30)).until(() -> ids.contains(1));
			assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
		}
		finally {
			consumer.stop();
		}
	}

	@Test
	void whileRunningUnderRecreateAReconnectToASlotLostMeanwhileGoesOnFromANewSlot() throws Exception {
		Losses losses = new Losses();
		List<Integer> ids = new CopyOnWriteArrayList<>();
		try (TcpProxy proxy = TcpProxy.start(this.server); Connection admin = this.database.connect()) {
			ReplicationConsumer consumer = viaProxy("run_recreate", LostSlotAction.RECREATE, losses, proxy, admin)
				.changeHandler((change) -> ids.add(id(change)))
				.build();
			consumer.start();
			try {
				this.database.execute("INSERT INTO orders VALUES (10)");
				await().atMost(Duration.ofSeconds(30)).until(() -> ids.contains(10));
				await().atMost(Duration.ofSeconds(30)).until(() -> consumer.ackedLsn().isValid());
				disconnect(proxy, "run_recreate");
				Lsn acked = consumer.ackedLsn();
				loseSlot("run_recreate");
				this.database.execute("INSERT INTO orders VALUES (11)");
				proxy.refuseNewConnections(false);
				await().atMost(Duration.ofSeconds(60)).until(() -> !losses.actions.isEmpty());
				assertThat(losses.actions).containsExactly(LostSlotAction.RECREATE);
				SlotLostException loss = losses.losses.get(0);
				assertThat(loss.reason()).isEqualTo(SlotLostException.Reason.INVALIDATED);
				assertThat(loss.lastConfirmedLsn()).isEqualTo(acked);
				await().atMost(Duration.ofSeconds(30)).until(() -> consumer.state() == ConsumerState.RUNNING);
				this.database.execute("INSERT INTO orders VALUES (12)");
				await().atMost(Duration.ofSeconds(30)).until(() -> ids.contains(12));
				// Committed while the slot was lost: skipped, as the ERROR log says.
				assertThat(ids).containsExactly(10, 12);
				assertThat(slot("run_recreate").isLost()).isFalse();
			}
			finally {
				consumer.stop();
			}
		}
	}

	@Test
	void whileRunningUnderFailAReconnectToASlotLostMeanwhileFailsTheConsumerWithTheLoss() throws Exception {
		Losses losses = new Losses();
		try (TcpProxy proxy = TcpProxy.start(this.server); Connection admin = this.database.connect()) {
			ReplicationConsumer consumer = viaProxy("run_fail", LostSlotAction.FAIL, losses, proxy, admin)
				.changeHandler((change) -> {
				})
				.build();
			consumer.start();
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> consumer.state() == ConsumerState.RUNNING);
				disconnect(proxy, "run_fail");
				loseSlot("run_fail");
				proxy.refuseNewConnections(false);
				await().atMost(Duration.ofSeconds(60)).until(() -> consumer.state() == ConsumerState.FAILED);
				assertThat(losses.actions).containsExactly(LostSlotAction.FAIL);
				assertThat(losses.failure).isInstanceOf(SlotLostException.class)
					.hasMessageContaining("Replication slot 'run_fail' is lost: the server invalidated it")
					.hasCauseInstanceOf(PostlogException.class);
				assertThat(slot("run_fail").isLost()).isTrue();
			}
			finally {
				consumer.stop();
			}
		}
	}

	@Test
	void whileRunningUnderFailASlotDroppedMeanwhileIsLostAsMissing() throws Exception {
		Losses losses = new Losses();
		try (TcpProxy proxy = TcpProxy.start(this.server); Connection admin = this.database.connect()) {
			ReplicationConsumer consumer = viaProxy("run_dropped", LostSlotAction.FAIL, losses, proxy, admin)
				.changeHandler((change) -> {
				})
				.build();
			consumer.start();
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> consumer.state() == ConsumerState.RUNNING);
				disconnect(proxy, "run_dropped");
				this.database.execute("SELECT pg_drop_replication_slot('run_dropped')");
				proxy.refuseNewConnections(false);
				await().atMost(Duration.ofSeconds(60)).until(() -> consumer.state() == ConsumerState.FAILED);
				assertThat(losses.losses).singleElement()
					.satisfies((loss) -> assertThat(loss.reason()).isEqualTo(SlotLostException.Reason.MISSING));
				assertThat(losses.failure).isInstanceOf(SlotLostException.class);
			}
			finally {
				consumer.stop();
			}
		}
	}

	@Test
	void atStartUnderRecreateWithAnInitialSnapshotANewSnapshotCreatesTheSlot() throws Exception {
		this.database.execute("CREATE TABLE stock_start (id int PRIMARY KEY)",
				"INSERT INTO stock_start VALUES (1), (2), (3)");
		createSlot("snap_start");
		loseSlot("snap_start");
		Losses losses = new Losses();
		List<String> seen = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = builder("snap_start", LostSlotAction.RECREATE, losses)
			.tables(List.of(TableId.parse("stock_start")))
			.jdbcUrl(this.database.jdbcUrl(), this.database.username(), null)
			.initialSnapshot(1, SnapshotOptions.DEFAULT_CHUNK_SIZE)
			.changeHandler((change) -> seen.add(change.operation() + " " + id(change)))
			.build();
		consumer.start();
		try {
			// Committed after the snapshot was exported, so streamed.
			await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() == 3);
			this.database.execute("INSERT INTO stock_start VALUES (4)");
			await().atMost(Duration.ofSeconds(60)).until(() -> seen.contains("INSERT 4"));
			assertThat(losses.actions).containsExactly(LostSlotAction.RECREATE);
			assertThat(seen).containsExactlyInAnyOrder("SNAPSHOT 1", "SNAPSHOT 2", "SNAPSHOT 3", "INSERT 4");
			assertThat(seen.get(3)).isEqualTo("INSERT 4");
			assertThat(slot("snap_start").isLost()).isFalse();
		}
		finally {
			consumer.stop();
		}
	}

	@Test
	void whileRunningUnderRecreateWithAnInitialSnapshotANewSnapshotDeliversTheTableAgain() throws Exception {
		this.database.execute("CREATE TABLE stock_run (id int PRIMARY KEY)", "INSERT INTO stock_run VALUES (1), (2)");
		Losses losses = new Losses();
		List<String> seen = new CopyOnWriteArrayList<>();
		try (TcpProxy proxy = TcpProxy.start(this.server); Connection admin = this.database.connect()) {
			ReplicationConsumer consumer = viaProxy("snap_run", LostSlotAction.RECREATE, losses, proxy, admin)
				.tables(List.of(TableId.parse("stock_run")))
				.initialSnapshot(1, SnapshotOptions.DEFAULT_CHUNK_SIZE)
				.snapshotConnections(SnapshotConnections.of(this.database.jdbcUrl(), this.database.username(), null))
				.changeHandler((change) -> seen.add(change.operation() + " " + id(change)))
				.build();
			consumer.start();
			try {
				await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() == 2);
				this.database.execute("INSERT INTO stock_run VALUES (3)");
				await().atMost(Duration.ofSeconds(60)).until(() -> seen.contains("INSERT 3"));
				await().atMost(Duration.ofSeconds(30)).until(() -> consumer.ackedLsn().isValid());
				assertThat(seen).containsExactly("SNAPSHOT 1", "SNAPSHOT 2", "INSERT 3");
				disconnect(proxy, "snap_run");
				loseSlot("snap_run");
				this.database.execute("INSERT INTO stock_run VALUES (4)", "DELETE FROM stock_run WHERE id = 1");
				seen.clear();
				proxy.refuseNewConnections(false);
				await().atMost(Duration.ofSeconds(60)).until(() -> !losses.actions.isEmpty());
				assertThat(losses.actions).containsExactly(LostSlotAction.RECREATE);
				await().atMost(Duration.ofSeconds(60)).until(() -> consumer.state() == ConsumerState.RUNNING);
				this.database.execute("INSERT INTO stock_run VALUES (5)");
				await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains("INSERT 5"));
				// The table as it is, then what followed: the DELETE of 1 is never seen.
				assertThat(seen).hasSize(4).last().isEqualTo("INSERT 5");
				assertThat(seen.subList(0, 3)).containsExactlyInAnyOrder("SNAPSHOT 2", "SNAPSHOT 3", "SNAPSHOT 4");
				assertThat(slot("snap_run").isLost()).isFalse();
			}
			finally {
				consumer.stop();
			}
		}
	}

	private ReplicationConsumer.Builder builder(String slot, LostSlotAction action, Losses losses) {
		return ReplicationConsumer.builder()
			.slotName(slot)
			.publicationName(slot + "_pub")
			.tables(List.of(TableId.parse("orders")))
			.statusInterval(Duration.ofMillis(500))
			.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofMillis(500), 3))
			.lostSlotAction(action)
			.listener(losses);
	}

	private ReplicationConsumer.Builder viaProxy(String slot, LostSlotAction action, Losses losses, TcpProxy proxy,
			Connection admin) {
		return builder(slot, action, losses)
			.connectionFactory(ReplicationConnectionFactory.of(proxy.jdbcUrl(this.database.name()),
					this.database.username(), null))
			.adminConnection(admin);
	}

	/**
	 * Cuts the replication connection and keeps new ones out until the server has let go
	 * of the slot.
	 */
	private void disconnect(TcpProxy proxy, String slot) {
		proxy.refuseNewConnections(true);
		proxy.cutConnections();
		await().atMost(Duration.ofSeconds(30)).until(() -> !slot(slot).active());
	}

	private void createSlot(String name) {
		this.database.execute("SELECT pg_create_logical_replication_slot('" + name + "', 'pgoutput')");
	}

	private void loseSlot(String name) throws Exception {
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

	private SlotInfo slot(String name) {
		try (Connection connection = this.database.connect()) {
			return new ReplicationAdmin(connection).slot(name).orElseThrow();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static int id(Change change) {
		return change.after().get("id", Integer.class);
	}

	private static final class Losses implements ConsumerListener {

		final List<SlotLostException> losses = new CopyOnWriteArrayList<>();

		final List<LostSlotAction> actions = new CopyOnWriteArrayList<>();

		volatile @Nullable Throwable failure;

		@Override
		public void slotLost(SlotLostException loss, LostSlotAction action) {
			this.losses.add(loss);
			this.actions.add(action);
		}

		@Override
		public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
			if (current == ConsumerState.FAILED) {
				this.failure = cause;
			}
		}

	}

}
