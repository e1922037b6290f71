package io.postlog.consumer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotInfo;
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
 * A {@link ReplicationConsumer} with {@code failover(true)} survives a standby promotion
 * (PostgreSQL 17+): its slot is created with failover and synchronised to a physical
 * standby, the primary crashes mid-stream while a writer commits, the standby is
 * promoted, and the application's connection (replication and admin, through a
 * {@link TcpProxy}) is pointed at it. Every commit acknowledged to the writer reaches the
 * handler, and only commits the consumer had not acknowledged at the crash come twice.
 * What a process started afresh right after the promotion would receive again is counted
 * too: the standby's copy of the slot is only as current as its last sync cycle, while a
 * running consumer resumes from its own acknowledged position, before which the server
 * skips every commit.
 */
@Tag("failover")
class FailoverPromotionConsumerIntegrationTests {

	private static final Logger logger = LoggerFactory.getLogger(FailoverPromotionConsumerIntegrationTests.class);

	private static final String DATABASE = "failover_consumer";

	private static final String SLOT = "consumer_slot";

	@Test
	void everyAcknowledgedCommitReachesTheHandlerAfterThePromotion() throws Exception {
		assumeTrue(EmbeddedPostgresServer.shared().serverVersion() >= 170000, "failover slots need PostgreSQL 17");
		try (ReplicatedPostgres pair = ReplicatedPostgres.builder().start();
				TcpProxy proxy = TcpProxy.start(pair.primary())) {
			execute(pair.primary(), "postgres", "CREATE DATABASE " + DATABASE,
					"ALTER SYSTEM SET synchronous_standby_names = '" + ReplicatedPostgres.STANDBY_SLOT + "'",
					"SELECT pg_reload_conf()");
			execute(pair.primary(), DATABASE, "CREATE TABLE events (id int PRIMARY KEY)");
			List<Integer> received = new CopyOnWriteArrayList<>();
			Map<Integer, Lsn> commits = new ConcurrentHashMap<>();
			ReplicationConsumer consumer = ReplicationConsumer.builder()
				.jdbcUrl(proxy.jdbcUrl(DATABASE), "postgres", null)
				.slotName(SLOT)
				.publicationName("events_pub")
				.tables(List.of(TableId.parse("events")))
				.failover(true)
				.statusInterval(Duration.ofMillis(500))
				.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1), 10))
				.changeHandler((change) -> {
					int id = id(change);
					received.add(id);
					commits.put(id, change.commitLsn());
				})
				.build();
			consumer.start();
			try {
				List<Integer> committed = new ArrayList<>(write(proxy, 1, 200));
				await().atMost(Duration.ofSeconds(60)).until(() -> new HashSet<>(received).containsAll(committed));
				// A synced slot turns persistent on the standby once the primary's
				// slot has moved past the standby's catalog horizon: a
				// running-transactions record, confirmed by the consumer.
				await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofSeconds(1)).until(() -> {
					execute(pair.primary(), DATABASE, "SELECT pg_log_standby_snapshot()");
					return "true".equals(query(pair.standby(),
							"SELECT (synced AND NOT temporary)::text FROM pg_replication_slots WHERE slot_name = '"
									+ SLOT + "'"));
				});

				MidStreamWriter writer = new MidStreamWriter(proxy.jdbcUrl(DATABASE), 201);
				writer.start();
				await().atMost(Duration.ofSeconds(30)).until(() -> writer.committed().size() >= 100);
				pair.crashPrimary();
				writer.join(30_000);
				Lsn acknowledged = consumer.ackedLsn();
				committed.addAll(writer.committed());
				pair.promoteStandby();
				// What the promoted standby's copy says before the consumer reconnects:
				// where a process started afresh now would begin.
				Lsn copyConfirmed = Lsn.parse(query(pair.standby(),
						"SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '" + SLOT + "'"));
				proxy.retarget("127.0.0.1", pair.standby().port());
				proxy.cutConnections();
				try (Connection connection = pair.standby().connect(DATABASE)) {
					SlotInfo slot = new ReplicationAdmin(connection).slot(SLOT).orElseThrow();
					assertThat(slot.failover()).isTrue();
					assertThat(slot.walStatus()).isEqualTo("reserved");
				}
				committed.addAll(write(proxy, 100_001, 50));

				await().atMost(Duration.ofSeconds(90)).until(() -> new HashSet<>(received).containsAll(committed));
				Set<Integer> distinct = new HashSet<>(received);
				long again = commits.entrySet()
					.stream()
					.filter((entry) -> entry.getValue().isAfter(copyConfirmed)
							&& !entry.getValue().isAfter(acknowledged))
					.count();
				logger
					.info("{} acknowledged commits ({} during the crash window) all reached the handler: {} calls, {} "
							+ "distinct, {} duplicates. At the crash the consumer had acknowledged {}; the "
							+ "promoted standby's copy of the slot was confirmed at {} ({} bytes behind): a process "
							+ "started afresh would have received {} of these commits again", committed.size(),
							writer.committed().size(), received.size(), distinct.size(),
							received.size() - distinct.size(), acknowledged, copyConfirmed,
							acknowledged.minus(copyConfirmed), again);
				assertThat(distinct).containsAll(committed);
				// The running consumer resumed from its own acknowledged position:
				// whatever
				// came twice had not been acknowledged when the primary crashed.
				Map<Integer, Integer> calls = new HashMap<>();
				received.forEach((id) -> calls.merge(id, 1, Integer::sum));
				calls.forEach((id, count) -> {
					if (count > 1) {
						assertThat(commits.get(id)).as("commit LSN of id %d, received %d times", id, count)
							.isGreaterThanOrEqualTo(acknowledged);
					}
				});
				assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
			}
			finally {
				consumer.stop();
			}
		}
	}

	private static int id(Change change) {
		return change.after().get("id", Integer.class);
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

}
