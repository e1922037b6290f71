package io.postlog.consumer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.spill.SpillDirectory;
import io.postlog.consumer.spill.SpillLimitExceededException;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@link ReplicationConsumer} with streaming on, against a real server whose
 * {@code logical_decoding_work_mem} is at its minimum so that a few thousand rows make it
 * stream: it delivers exactly what a consumer without streaming delivers for the same WAL
 * (read from the same slot name, so ids compare whole), the server spills nothing for its
 * slot, and a transaction past the spill limit fails the consumer with the slot before
 * it.
 */
@Tag("matrix")
@PostgresTest(settings = "logical_decoding_work_mem=64kB")
class StreamingConsumerIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(120);

	@TempDir
	Path spillRoot;

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	private final List<Connection> sessions = new ArrayList<>();

	private PostgresDatabase database;

	@BeforeAll
	static void streamingServer() {
		StreamingServers.assumeStreaming();
	}

	@BeforeEach
	void setUp(PostgresDatabase database) {
		this.database = database;
		database.execute("DROP PUBLICATION IF EXISTS pub", "DROP TABLE IF EXISTS items, others, marker",
				"DROP TYPE IF EXISTS mood", "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
				"CREATE TABLE items (id int PRIMARY KEY, payload text, mood mood, amount numeric(12,2), "
						+ "at timestamptz)",
				"CREATE TABLE others (id int PRIMARY KEY, note text)", "CREATE TABLE marker (id int PRIMARY KEY)",
				"CREATE PUBLICATION pub FOR TABLE items, others, marker");
	}

	@AfterEach
	void tearDown() throws SQLException {
		this.consumers.forEach(ReplicationConsumer::stop);
		for (Connection session : this.sessions) {
			session.close();
		}
		if (this.database != null) {
			this.database.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
					+ " WHERE database = current_database() AND NOT active");
		}
	}

	@Test
	void interleavedTransactionsWithRolledBackSavepointsDeliverWhatProtocolOneDeliversIdsIncluded() throws Exception {
		this.database.execute("SELECT pg_create_logical_replication_slot('cmp', 'pgoutput')",
				"SELECT pg_copy_logical_replication_slot('cmp', 'cmp_copy')");
		Connection[] open = new Connection[4];
		for (int i = 0; i < open.length; i++) {
			open[i] = session();
			open[i].setAutoCommit(false);
		}
		for (int round = 0; round < 6; round++) {
			for (int session = 0; session < open.length; session++) {
				for (String sql : round(session, round)) {
					execute(open[session], sql);
				}
			}
			if (round == 3) {
				this.database.execute("INSERT INTO items VALUES (-1, 'committed while the others are open')");
			}
		}
		open[2].commit();
		open[0].commit();
		open[3].rollback();
		open[1].commit();
		this.database.execute("INSERT INTO marker VALUES (1)");

		List<Change> plain = readUntilMarker(builder("cmp"));
		stopAll();
		await().atMost(WAIT).until(() -> "false".equals(slotColumn("cmp", "active")));
		this.database.execute("SELECT pg_drop_replication_slot('cmp')",
				"SELECT pg_copy_logical_replication_slot('cmp_copy', 'cmp')");
		ReplicationConsumer.Builder streaming = builder("cmp").streaming(128 * 1024, this.spillRoot, 1L << 30);
		List<Change> streamed = readUntilMarker(streaming);
		ReplicationConsumer streamingConsumer = this.consumers.get(0);

		assertThat(plain.stream().map(Change::xid).distinct())
			.as("the one committed in between, three sessions' transactions, the marker")
			.hasSize(5);
		assertThat(plain).hasSizeGreaterThan(5000);
		assertThat(streamed).isEqualTo(plain);
		assertThat(streamingConsumer.spilledBytesTotal()).as("bytes the consumer spilled").isPositive();
		await().until(() -> streamingConsumer.spilledBytes() == 0);
		assertThat(spillFiles()).isEmpty();
		long[] stats = slotStats("cmp");
		System.out.println("[fact] interleaved workload, streaming slot (spill_bytes, stream_bytes): "
				+ List.of(stats[0], stats[1]));
	}

	/**
	 * Six rounds of 400 inserts per session. Session 0 commits, updates and deletes among
	 * its own rows; 1 rolls back one savepoint; 2 nests a released savepoint in one it
	 * rolls back and first touches {@code others} inside it; 3 releases a savepoint and
	 * then rolls back everything.
	 */
	private static List<String> round(int session, int round) {
		List<String> sql = new ArrayList<>();
		if (round == 1 && session > 0) {
			sql.add("SAVEPOINT a");
		}
		if (round == 2 && session == 2) {
			sql.add("SAVEPOINT b");
			sql.add("INSERT INTO others SELECT g, 'inside b' FROM generate_series(1, 400) g");
		}
		if (round == 3 && session == 2) {
			sql.add("RELEASE SAVEPOINT b");
		}
		if (round == 4) {
			if (session == 1 || session == 2) {
				sql.add("ROLLBACK TO SAVEPOINT a");
			}
			if (session == 3) {
				sql.add("RELEASE SAVEPOINT a");
			}
			if (session == 2) {
				sql.add("INSERT INTO others SELECT g, 'after rollback' FROM generate_series(1, 10) g");
			}
		}
		int from = session * 1_000_000 + round * 1_000;
		sql.add("INSERT INTO items SELECT g, md5(g::text), 'sad', g, '2024-01-01 00:00:00+00'::timestamptz + "
				+ "g * interval '1 second' FROM generate_series(" + from + ", " + (from + 399) + ") g");
		if (round == 5 && session == 0) {
			sql.add("UPDATE items SET payload = 'updated', mood = 'happy' WHERE id BETWEEN 0 AND 2000 AND id % 3 = 0");
			sql.add("DELETE FROM items WHERE id BETWEEN 0 AND 2000 AND id % 7 = 0");
		}
		return sql;
	}

	@Test
	void streamingSlotSpillsNothingOnTheServerWhileTheSameWorkloadWithoutStreamingSpills() throws Exception {
		this.database.execute("SELECT pg_create_logical_replication_slot('stats_streamed', 'pgoutput')",
				"SELECT pg_create_logical_replication_slot('stats_plain', 'pgoutput')");
		this.database.execute(
				"INSERT INTO items SELECT g, md5(g::text), 'ok', g, now() FROM generate_series(1, 20000) g",
				"INSERT INTO marker VALUES (1)");
		List<Change> streamed = readUntilMarker(
				builder("stats_streamed").streaming(16L << 20, this.spillRoot, 1L << 30));
		List<Change> plain = readUntilMarker(builder("stats_plain"));
		assertThat(streamed).hasSize(20001);
		assertThat(plain).hasSize(20001);
		await().atMost(WAIT).until(() -> slotStats("stats_streamed")[1] > 0 && slotStats("stats_plain")[0] > 0);
		long[] streamedStats = slotStats("stats_streamed");
		long[] plainStats = slotStats("stats_plain");
		System.out.println("[fact] 20,000-row transaction through ReplicationConsumer, pg_stat_replication_slots "
				+ "(spill_bytes, stream_bytes): streaming " + List.of(streamedStats[0], streamedStats[1])
				+ ", without streaming " + List.of(plainStats[0], plainStats[1]));
		assertThat(streamedStats[0]).as("spill_bytes with streaming").isZero();
		assertThat(plainStats[0]).as("spill_bytes without streaming").isPositive();
		assertThat(plainStats[1]).as("stream_bytes without streaming").isZero();
	}

	@Test
	void transactionPastTheSpillLimitFailsTheConsumerNamingTheLimitWithTheSlotBeforeIt() throws Exception {
		this.database.execute("SELECT pg_create_logical_replication_slot('capped', 'pgoutput')");
		this.database.execute("INSERT INTO items VALUES (-1, 'small, before')");
		AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
		List<Change> delivered = new CopyOnWriteArrayList<>();
		ReplicationConsumer capped = start(builder("capped").streaming(64 * 1024, this.spillRoot, 1L << 20)
			.changeHandler(delivered::add)
			.listener(new ConsumerListener() {

				@Override
				public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
					if (current == ConsumerState.FAILED) {
						failure.set(cause);
					}
				}

			}));
		await().atMost(WAIT).until(() -> delivered.size() == 1);
		Lsn smallCommit = delivered.get(0).commitLsn();
		await().atMost(WAIT)
			.until(() -> capped.ackedLsn().isAfter(smallCommit)
					&& !confirmedFlush("capped").isBefore(capped.ackedLsn()));
		Lsn smallEnd = capped.ackedLsn();
		this.database.execute("INSERT INTO items SELECT g, 'oversized-' || md5(g::text), 'ok', g, now() "
				+ "FROM generate_series(1, 50000) g");
		await().atMost(WAIT).until(() -> capped.state() == ConsumerState.FAILED);
		assertThat(failure.get()).isInstanceOf(SpillLimitExceededException.class)
			.hasMessageContaining("limit of 1048576 bytes")
			.hasMessageContaining("maxSpill");
		assertThat(failure.get().getMessage()).doesNotContain("oversized-");
		assertThat(delivered).hasSize(1);
		Lsn confirmed = confirmedFlush("capped");
		assertThat(confirmed).isGreaterThanOrEqualTo(smallEnd);
		assertThat(spillFiles()).isEmpty();
		stopAll();

		this.database.execute("INSERT INTO marker VALUES (1)");
		List<Change> after = readUntilMarker(builder("capped").streaming(64 * 1024, this.spillRoot, 1L << 30));
		assertThat(after).hasSize(50001);
		Lsn commitLsn = after.get(0).commitLsn();
		System.out.println("[fact] failed past maxSpill with the slot confirmed at " + confirmed
				+ "; the transaction commits at " + commitLsn);
		assertThat(confirmed).as("the slot stayed before the transaction").isLessThan(commitLsn);
		assertThat(after.get(0).index()).isZero();
		assertThat(spillFiles()).isEmpty();
	}

	private ReplicationConsumer.Builder builder(String slot) {
		return ReplicationConsumer.builder()
			.jdbcUrl(this.database.jdbcUrl(), this.database.username(), null)
			.slotName(slot)
			.slotLifecycle(SlotLifecycle.EXISTING)
			.publicationName("pub")
			.publicationMode(PublicationMode.EXISTING)
			.statusInterval(Duration.ofSeconds(1));
	}

	private ReplicationConsumer start(ReplicationConsumer.Builder builder) {
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		consumer.start();
		return consumer;
	}

	/** Collects every change until the marker's. */
	private List<Change> readUntilMarker(ReplicationConsumer.Builder builder) {
		List<Change> changes = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(builder.changeHandler(changes::add));
		await().atMost(WAIT)
			.until(() -> consumer.state() == ConsumerState.FAILED
					|| (!changes.isEmpty() && changes.get(changes.size() - 1).table().name().equals("marker")));
		assertThat(consumer.state()).isNotEqualTo(ConsumerState.FAILED);
		return new ArrayList<>(changes);
	}

	private void stopAll() {
		this.consumers.forEach(ReplicationConsumer::stop);
		this.consumers.clear();
	}

	private Connection session() throws SQLException {
		Connection session = this.database.connect();
		this.sessions.add(session);
		return session;
	}

	private List<Path> spillFiles() throws IOException {
		try (Stream<Path> files = Files.walk(this.spillRoot)) {
			return files.filter((file) -> file.toString().endsWith(SpillDirectory.SUFFIX)).toList();
		}
	}

	private Lsn confirmedFlush(String slot) throws SQLException {
		return Lsn.parse(slotColumn(slot, "confirmed_flush_lsn"));
	}

	private @Nullable String slotColumn(String slot, String column) throws SQLException {
		try (Connection connection = this.database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT " + column + "::text FROM pg_replication_slots"
						+ " WHERE slot_name = '" + slot + "'")) {
			return row.next() ? row.getString(1) : null;
		}
	}

	private long[] slotStats(String slot) throws SQLException {
		try (Connection connection = this.database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT spill_bytes, stream_bytes FROM pg_stat_replication_slots"
						+ " WHERE slot_name = '" + slot + "'")) {
			return row.next() ? new long[] { row.getLong(1), row.getLong(2) } : new long[] { 0, 0 };
		}
	}

	private static void execute(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

}
