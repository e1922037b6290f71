package io.postlog.admin;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.postlog.Lsn;
import io.postlog.pgoutput.PgOutputDecoder;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.TupleValue;
import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.ReplicatedPostgres;
import io.postlog.test.TcpProxy;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A failover slot survives a standby promotion (PostgreSQL 17+): created on the primary
 * with {@link ReplicationAdmin#ensureSlot(String, SlotLifecycle, boolean)}, synchronised
 * to a physical standby ({@code sync_replication_slots = on}), and after the primary
 * crashes mid-stream and the standby is promoted, a reader pointed at the new primary
 * (through {@link TcpProxy}) gets every change whose commit was acknowledged. Commits
 * wait for the standby ({@code synchronous_standby_names}), as they must for "nothing
 * lost"; {@code synchronized_standby_slots} keeps the reader from getting ahead of it.
 * The reader is plain pgjdbc, acknowledging each commit it decoded.
 */
@Tag("failover")
class FailoverPromotionIntegrationTests {

	private static final Logger logger = LoggerFactory.getLogger(FailoverPromotionIntegrationTests.class);

	private static final String DATABASE = "failover_app";

	private static final String SLOT = "app_slot";

	@Test
	void everyAcknowledgedCommitArrivesFromThePromotedStandby() throws Exception {
		assumeTrue(EmbeddedPostgresServer.shared().serverVersion() >= 170000, "failover slots need PostgreSQL 17");
		try (ReplicatedPostgres pair = ReplicatedPostgres.builder().start();
				TcpProxy proxy = TcpProxy.start(pair.primary())) {
			execute(pair.primary(), "postgres", "CREATE DATABASE " + DATABASE,
					"ALTER SYSTEM SET synchronous_standby_names = '" + ReplicatedPostgres.STANDBY_SLOT + "'",
					"SELECT pg_reload_conf()");
			execute(pair.primary(), DATABASE, "CREATE TABLE events (id int PRIMARY KEY)",
					"CREATE PUBLICATION events_pub FOR TABLE events");
			try (Connection connection = pair.primary().connect(DATABASE)) {
				SlotInfo slot = new ReplicationAdmin(connection).ensureSlot(SLOT, SlotLifecycle.CREATE_IF_MISSING,
						true);
				assertThat(slot.failover()).isTrue();
			}
			Reader reader = new Reader(proxy.jdbcUrl(DATABASE));
			reader.start();
			try {
				List<Integer> committed = new ArrayList<>(write(proxy, 1, 200));
				await().atMost(Duration.ofSeconds(60)).until(() -> reader.ids().containsAll(committed));
				// A synced slot turns persistent once the primary's slot has moved past
				// the standby's
				// own catalog horizon: a running-transactions record, confirmed by the
				// reader.
				await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofSeconds(1)).until(() -> {
					execute(pair.primary(), DATABASE, "SELECT pg_log_standby_snapshot()");
					return "true".equals(query(pair.standby(), "SELECT (synced AND NOT temporary)::text"
							+ " FROM pg_replication_slots WHERE slot_name = '" + SLOT + "'"));
				});

				MidStreamWriter writer = new MidStreamWriter(proxy.jdbcUrl(DATABASE), 201);
				writer.start();
				await().atMost(Duration.ofSeconds(30)).until(() -> writer.committed().size() >= 100);
				try (Connection standby = pair.standby().connect(DATABASE);
						Connection primary = pair.primary().connect(DATABASE)) {
					ReplicationAdmin standbyAdmin = new ReplicationAdmin(standby);
					ReplicationSettings standbySettings = standbyAdmin.replicationSettings();
					assertThat(standbySettings.inRecovery()).isTrue();
					assertThat(standbySettings.syncReplicationSlots()).isTrue();
					assertThat(standbySettings.hotStandbyFeedback()).isTrue();
					assertThat(new ReplicationAdmin(primary).replicationSettings().waitsForStandbys()).isTrue();
					SlotInfo copy = standbyAdmin.logicalSlots()
						.stream()
						.filter((slot) -> slot.slotName().equals(SLOT))
						.findFirst()
						.orElseThrow();
					assertThat(copy.synced()).isTrue();
					assertThat(copy.failover()).isTrue();
					assertThat(copy.retainedBytes(standbyAdmin.walPosition())).isNotNull();
				}
				String confirmed = "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '"
						+ SLOT + "'";
				logger.info("Before the crash the slot is confirmed at {} on the primary and at {} on the standby",
						query(pair.primary(), confirmed), query(pair.standby(), confirmed));
				pair.crashPrimary();
				writer.join(30_000);
				committed.addAll(writer.committed());
				logger.info("Primary crashed after {} acknowledged commits ({} of them during the crash window)",
						committed.size(), writer.committed().size());

				pair.promoteStandby();
				proxy.retarget("127.0.0.1", pair.standby().port());
				proxy.cutConnections();
				String slotAfter = query(pair.standby(),
						"SELECT failover::text || '/' || wal_status FROM pg_replication_slots WHERE slot_name = '"
								+ SLOT + "'");
				assertThat(slotAfter).isEqualTo("true/reserved");
				committed.addAll(write(proxy, 100_001, 50));

				await().atMost(Duration.ofSeconds(60)).until(() -> reader.ids().containsAll(committed));
				List<Integer> received = reader.received();
				Set<Integer> distinct = new HashSet<>(received);
				logger.info(
						"Received {} changes, {} distinct, {} duplicates; {} acknowledged commits all arrived; "
								+ "reader reconnected {} times",
						received.size(), distinct.size(), received.size() - distinct.size(), committed.size(),
						reader.connects() - 1);
				assertThat(distinct).containsAll(committed);
				assertThat(reader.connects()).isGreaterThanOrEqualTo(2);
			}
			finally {
				reader.stop();
			}
			assertThat(reader.failure()).isNull();
		}
	}

	private static List<Integer> write(TcpProxy proxy, int first, int count) throws SQLException {
		List<Integer> committed = new ArrayList<>();
		try (Connection connection = connect(proxy.jdbcUrl(DATABASE));
				Statement statement = connection.createStatement()) {
			for (int id = first; id < first + count; id++) {
				statement.execute("INSERT INTO events VALUES (" + id + ")");
				committed.add(id);
			}
		}
		return committed;
	}

	private static Connection connect(String url) throws SQLException {
		Properties properties = new Properties();
		properties.setProperty("user", "postgres");
		return DriverManager.getConnection(url, properties);
	}

	private static void execute(EmbeddedPostgresServer server, String database, String... statements)
			throws SQLException {
		try (Connection connection = server.connect(database); Statement statement = connection.createStatement()) {
			for (String sql : statements) {
				statement.execute(sql);
			}
		}
	}

	private static String query(EmbeddedPostgresServer server, String sql) throws SQLException {
		try (Connection connection = server.connect("postgres");
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery(sql)) {
			return row.next() ? row.getString(1) : null;
		}
	}

	/** Inserts one row per transaction until the server goes away. */
	private static final class MidStreamWriter extends Thread {

		private final String url;

		private final int first;

		private final ConcurrentLinkedQueue<Integer> committed = new ConcurrentLinkedQueue<>();

		MidStreamWriter(String url, int first) {
			super("failover-test-writer");
			setDaemon(true);
			this.url = url;
			this.first = first;
		}

		@Override
		public void run() {
			try (Connection connection = connect(this.url); Statement statement = connection.createStatement()) {
				for (int id = this.first;; id++) {
					statement.execute("INSERT INTO events VALUES (" + id + ")");
					this.committed.add(id);
				}
			}
			catch (SQLException ex) {
				// The crash: the commit in flight may or may not have happened.
			}
		}

		List<Integer> committed() {
			return List.copyOf(this.committed);
		}

	}

	/** Streams the slot through the proxy, reconnecting after every loss. */
	private static final class Reader {

		private final String url;

		private final ConcurrentLinkedQueue<Integer> received = new ConcurrentLinkedQueue<>();

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final AtomicReference<Throwable> failure = new AtomicReference<>();

		private final Thread thread;

		private volatile int connects;

		Reader(String url) {
			this.url = url;
			this.thread = new Thread(this::run, "failover-test-reader");
			this.thread.setDaemon(true);
		}

		void start() {
			this.thread.start();
		}

		private void run() {
			try {
				while (this.running.get()) {
					try (RawStream stream = RawStream.open(this.url, SLOT, "events_pub")) {
						this.connects++;
						read(stream);
					}
					catch (SQLException ex) {
						Thread.sleep(200);
					}
				}
			}
			catch (Throwable ex) {
				this.failure.set(ex);
			}
		}

		private void read(RawStream stream) throws SQLException, InterruptedException {
			boolean inTransaction = false;
			Lsn acknowledged = Lsn.INVALID;
			while (this.running.get()) {
				ByteBuffer buffer = stream.readPending();
				if (buffer == null) {
					Lsn received = stream.lastReceived();
					if (!inTransaction && received.isAfter(acknowledged)) {
						// As postlog does: between transactions, confirm the server's
						// position.
						stream.acknowledge(received);
						acknowledged = received;
					}
					Thread.sleep(10);
					continue;
				}
				PgOutputMessage message = PgOutputDecoder.decode(buffer);
				if (message instanceof PgOutputMessage.Begin) {
					inTransaction = true;
				}
				else if (message instanceof PgOutputMessage.Insert insert) {
					TupleValue id = insert.newTuple().get(0);
					this.received
						.add(Integer.parseInt(new String(((TupleValue.Text) id).bytes(), StandardCharsets.UTF_8)));
				}
				else if (message instanceof PgOutputMessage.Commit commit) {
					stream.acknowledge(commit.endLsn());
					acknowledged = commit.endLsn();
					inTransaction = false;
				}
			}
		}

		Set<Integer> ids() {
			return new HashSet<>(this.received);
		}

		List<Integer> received() {
			return List.copyOf(this.received);
		}

		int connects() {
			return this.connects;
		}

		Throwable failure() {
			return this.failure.get();
		}

		void stop() throws InterruptedException {
			this.running.set(false);
			this.thread.join(10_000);
		}

	}

}
