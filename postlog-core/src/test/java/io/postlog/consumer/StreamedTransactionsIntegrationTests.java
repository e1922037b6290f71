package io.postlog.consumer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.consumer.delivery.Event;
import io.postlog.consumer.spill.SpillDirectory;
import io.postlog.consumer.spill.StreamedTransactions;
import io.postlog.consumer.spill.StreamingOptions;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Streamed transactions (pgoutput protocol 2, {@code streaming 'on'}) replayed by
 * {@link StreamedTransactions} give the assembler exactly the events that protocol 1
 * gives for the same WAL, read from a second slot created at the same point: same
 * transactions in the same commit order, same changes, values, indexes, ids, commit LSN,
 * end LSN and commit time. The server's {@code logical_decoding_work_mem} is at its
 * minimum so that a few thousand rows make it stream (or, with protocol 1, spill).
 */
@Tag("matrix")
@PostgresTest(settings = "logical_decoding_work_mem=64kB")
class StreamedTransactionsIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(120);

	private static final List<String> PROTOCOL_1 = List.of("proto_version", "1", "binary", "true", "messages", "true");

	private static final List<String> STREAMING = List.of("proto_version", "2", "streaming", "on", "binary", "true",
			"messages", "true");

	@TempDir
	Path spillRoot;

	@BeforeAll
	static void streamingServer() {
		StreamingServers.assumeStreaming();
	}

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final Map<StreamedEventsReader, StreamedTransactions> streamsOf = new HashMap<>();

	private PostgresDatabase database;

	@BeforeEach
	void setUp(PostgresDatabase database) {
		Assumptions.assumeTrue(database.serverVersion() >= 140000, "pgoutput streams since PostgreSQL 14");
		this.database = database;
		database.execute("DROP PUBLICATION IF EXISTS pub", "DROP TABLE IF EXISTS items, others, marker",
				"DROP TYPE IF EXISTS mood", "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
				"CREATE TABLE items (id int PRIMARY KEY, payload text, mood mood, amount numeric(12,2), "
						+ "at timestamptz)",
				"CREATE TABLE others (id int PRIMARY KEY, note text)", "CREATE TABLE marker (id int PRIMARY KEY)",
				"CREATE PUBLICATION pub FOR TABLE items, others, marker");
	}

	@AfterEach
	void tearDown() throws Exception {
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
		if (this.database != null) {
			this.database.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
					+ " WHERE database = current_database() AND NOT active");
		}
	}

	@Test
	void largeTransactionReplaysAsProtocolOneReadsItWithEveryValueIdAndPosition() throws Exception {
		createSlots("large_streamed", "large_plain");
		transaction("INSERT INTO items SELECT g, md5(g::text), 'ok', g * 1.5, "
				+ "'2024-01-01 00:00:00+00'::timestamptz + g * interval '1 second' FROM generate_series(1, 20000) g",
				"SELECT pg_logical_emit_message(true, 'test', 'in the middle')",
				"UPDATE items SET mood = 'happy', amount = amount + 1 WHERE id % 10 = 0",
				"DELETE FROM items WHERE id % 25 = 0",
				"INSERT INTO others SELECT g, 'note ' || g FROM generate_series(1, 500) g",
				"ALTER TABLE items ADD COLUMN extra text", "UPDATE items SET extra = 'e' || id WHERE id <= 2000",
				"TRUNCATE others", "INSERT INTO others VALUES (1, 'after truncate')");
		this.database.execute("INSERT INTO marker VALUES (1)");
		StreamedEventsReader streamed = streamedReader("large_streamed", 256 * 1024);
		List<List<Event>> replayed = transactions(streamed.readUntil(markerCommitted(), WAIT));
		StreamedEventsReader plain = plainReader("large_plain");
		List<List<Event>> expected = transactions(plain.readUntil(markerCommitted(), WAIT));

		assertThat(expected).hasSize(2);
		assertThat(expected.get(0)).hasSizeGreaterThan(25_000);
		assertThat(replayed).isEqualTo(expected);
		assertThat(count(streamed.control(), PgOutputMessage.StreamStart.class)).isGreaterThan(1);
		assertThat(count(streamed.control(), PgOutputMessage.StreamCommit.class)).isEqualTo(1);
		assertThat(streams(streamed).spilledBytesTotal()).isPositive();
		assertThat(streams(streamed).spilledBytes()).isZero();
		assertThat(streams(streamed).memoryBytes()).isZero();
		assertThat(spillFiles()).isEmpty();
	}

	@Test
	void interleavedTransactionsWithRolledBackSavepointsReplayAsProtocolOneReadsThemInCommitOrder() throws Exception {
		createSlots("mixed_streamed", "mixed_plain");
		Connection[] sessions = new Connection[4];
		long[] xids = new long[4];
		for (int i = 0; i < sessions.length; i++) {
			sessions[i] = this.database.connect();
			this.resources.add(sessions[i]);
			sessions[i].setAutoCommit(false);
			xids[i] = queryLong(sessions[i], "SELECT txid_current() % 4294967296");
		}
		for (int round = 0; round < 6; round++) {
			for (int session = 0; session < sessions.length; session++) {
				for (String sql : round(session, round)) {
					execute(sessions[session], sql);
				}
				execute(sessions[session], insertItems(session, round));
			}
			if (round == 3) {
				this.database.execute("INSERT INTO items VALUES (-1, 'committed while the others are open')");
			}
		}
		sessions[2].commit();
		sessions[0].commit();
		sessions[3].rollback();
		sessions[1].commit();
		this.database.execute("INSERT INTO marker VALUES (1)");

		StreamedEventsReader streamed = streamedReader("mixed_streamed", 128 * 1024);
		List<List<Event>> replayed = transactions(streamed.readUntil(markerCommitted(), WAIT));
		StreamedEventsReader plain = plainReader("mixed_plain");
		List<List<Event>> expected = transactions(plain.readUntil(markerCommitted(), WAIT));

		assertThat(expected).as("the one committed in between, three sessions in commit order, the marker").hasSize(5);
		assertThat(expected.subList(1, 4)).extracting(StreamedTransactionsIntegrationTests::xidOf)
			.containsExactly(xids[2], xids[0], xids[1]);
		assertThat(replayed).isEqualTo(expected);
		List<PgOutputMessage.StreamAbort> aborts = aborts(streamed);
		System.out.println("[fact] Stream Aborts (xid, subXid) with sessions' xids "
				+ List.of(xids[0], xids[1], xids[2], xids[3]) + ": "
				+ aborts.stream().map((abort) -> "(" + abort.xid() + ", " + abort.subXid() + ")").toList());
		List<Long> nested = subtransactionAborts(aborts, xids[2]);
		assertThat(nested).as("ROLLBACK TO an outer savepoint after RELEASE of an inner one").hasSize(2);
		assertThat(nested.get(0)).as("the inner subtransaction is aborted first").isGreaterThan(nested.get(1));
		assertThat(subtransactionAborts(aborts, xids[1])).as("ROLLBACK TO SAVEPOINT").hasSize(1);
		List<PgOutputMessage.StreamAbort> rolledBack = aborts.stream()
			.filter((abort) -> abort.xid() == xids[3])
			.toList();
		// PostgreSQL 18 does not stream a transaction it already knows to be aborted.
		if (streamed.control()
			.stream()
			.anyMatch((message) -> message instanceof PgOutputMessage.StreamStart start && start.xid() == xids[3])) {
			assertThat(rolledBack).as("ROLLBACK of the whole transaction").isNotEmpty();
			assertThat(rolledBack.get(rolledBack.size() - 1).subXid()).isEqualTo(xids[3]);
		}
		assertThat(streams(streamed).hasOpenTransactions()).isFalse();
		assertThat(streams(streamed).spilledBytesTotal()).isPositive();
		assertThat(streams(streamed).spilledBytes()).isZero();
		assertThat(spillFiles()).isEmpty();
	}

	/**
	 * Session 0 commits plainly; 1 rolls back one savepoint; 2 nests a released savepoint
	 * in one it rolls back, and first touches {@code others} inside it; 3 releases a
	 * savepoint and then rolls back everything.
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
		return sql;
	}

	private static String insertItems(int session, int round) {
		int from = session * 1_000_000 + round * 1_000;
		return "INSERT INTO items SELECT g, md5(g::text), 'sad', g, now() FROM generate_series(" + from + ", "
				+ (from + 399) + ") g";
	}

	private static List<Long> subtransactionAborts(List<PgOutputMessage.StreamAbort> aborts, long xid) {
		return aborts.stream()
			.filter((abort) -> abort.xid() == xid && abort.subXid() != xid)
			.map(PgOutputMessage.StreamAbort::subXid)
			.toList();
	}

	private static long xidOf(List<Event> transaction) {
		return ((Event.Begin) transaction.get(0)).xid();
	}

	@Test
	void streamingSlotSpillsNothingOnTheServerWhileAProtocolOneSlotSpills() throws Exception {
		createSlots("stats_streamed", "stats_plain");
		StreamedEventsReader streamed = streamedReader("stats_streamed", 1024 * 1024);
		try (Connection session = this.database.connect()) {
			session.setAutoCommit(false);
			execute(session,
					"INSERT INTO items SELECT g, md5(g::text), 'ok', g, now() FROM generate_series(1, 10000) g");
			streamed.readUntilControl(PgOutputMessage.StreamStop.class::isInstance, WAIT);
			await().atMost(WAIT).until(() -> slotStats("stats_streamed")[1] > 0);
			long[] open = slotStats("stats_streamed");
			assertThat(open[0]).as("spill_bytes while the transaction is open").isZero();
			execute(session,
					"INSERT INTO items SELECT g, md5(g::text), 'ok', g, now() FROM generate_series(10001, 20000) g");
			session.commit();
			this.database.execute("INSERT INTO marker VALUES (1)");
			streamed.readUntil(markerCommitted(), WAIT);
			await().atMost(WAIT).until(() -> slotStats("stats_streamed")[1] > open[1]);
		}
		StreamedEventsReader plain = plainReader("stats_plain");
		plain.readUntil(markerCommitted(), WAIT);
		await().atMost(WAIT).until(() -> slotStats("stats_plain")[0] > 0);
		long[] streamedStats = slotStats("stats_streamed");
		long[] plainStats = slotStats("stats_plain");
		System.out.println("[fact] pg_stat_replication_slots (spill_bytes, stream_bytes): streaming slot "
				+ List.of(streamedStats[0], streamedStats[1]) + ", protocol 1 slot "
				+ List.of(plainStats[0], plainStats[1]));
		assertThat(streamedStats[0]).as("spill_bytes of the streaming slot").isZero();
		assertThat(streamedStats[1]).as("stream_bytes of the streaming slot").isPositive();
		assertThat(plainStats[0]).as("spill_bytes of the protocol 1 slot").isPositive();
		assertThat(plainStats[1]).as("stream_bytes of the protocol 1 slot").isZero();
	}

	@Test
	void relationFirstStreamedInARolledBackSavepointIsStreamedAgainAndReplaysAsProtocolOne() throws Exception {
		createSlots("touch_streamed", "touch_plain");
		long others = queryLong(this.database, "SELECT 'others'::regclass::oid");
		StreamedEventsReader streamed = streamedReader("touch_streamed", 64 * 1024);
		long xid;
		try (Connection session = this.database.connect()) {
			session.setAutoCommit(false);
			xid = queryLong(session, "SELECT txid_current() % 4294967296");
			execute(session,
					"INSERT INTO items SELECT g, md5(g::text), 'ok', g, now() FROM generate_series(1, 3000) g");
			execute(session, "SAVEPOINT s");
			execute(session, "INSERT INTO others SELECT g, repeat('x', 100) FROM generate_series(1, 4000) g");
			streamed.readWhile(() -> relationsOf(streamed, others).isEmpty(), WAIT);
			execute(session, "ROLLBACK TO SAVEPOINT s");
			execute(session, "INSERT INTO others VALUES (1, 'after the rollback')");
			execute(session,
					"INSERT INTO items SELECT g, md5(g::text), 'ok', g, now() FROM generate_series(3001, 6000) g");
			session.commit();
		}
		this.database.execute("INSERT INTO marker VALUES (1)");
		List<List<Event>> replayed = transactions(streamed.readUntil(markerCommitted(), WAIT));
		List<List<Event>> expected = transactions(plainReader("touch_plain").readUntil(markerCommitted(), WAIT));
		List<Long> relationXids = relationsOf(streamed, others);
		System.out.println("[fact] Relation of 'others' streamed with xids " + relationXids + " in transaction " + xid
				+ ", aborts " + aborts(streamed));
		assertThat(relationXids.get(0)).as("first sent with the savepoint's xid").isNotEqualTo(xid);
		assertThat(aborts(streamed)).extracting(PgOutputMessage.StreamAbort::subXid).contains(relationXids.get(0));
		assertThat(relationXids).as("sent again after the savepoint's abort").hasSize(2);
		assertThat(replayed).isEqualTo(expected);
	}

	private static List<Long> relationsOf(StreamedEventsReader reader, long relationId) {
		return reader.blockRelations()
			.stream()
			.filter((relation) -> relation[1] == relationId)
			.map((relation) -> relation[0])
			.toList();
	}

	@Test
	void originOfAStreamedTransactionReachesItsCommitAsWithProtocolOne() throws Exception {
		createSlots("origin_streamed", "origin_plain");
		String origin = "upstream_" + this.database.name();
		this.database.execute("SELECT pg_replication_origin_create('" + origin + "')");
		try (Connection session = this.database.connect()) {
			execute(session, "SELECT pg_replication_origin_session_setup('" + origin + "')");
			session.setAutoCommit(false);
			execute(session, "SELECT pg_replication_origin_xact_setup('1/ABCDEF', now())");
			execute(session,
					"INSERT INTO items SELECT g, md5(g::text), 'ok', g, now() FROM generate_series(1, 5000) g");
			session.commit();
			session.setAutoCommit(true);
			execute(session, "SELECT pg_replication_origin_session_reset()");
		}
		finally {
			this.database.execute("SELECT pg_replication_origin_drop('" + origin + "')");
		}
		this.database.execute("INSERT INTO marker VALUES (1)");
		StreamedEventsReader streamed = streamedReader("origin_streamed", 64 * 1024);
		List<List<Event>> replayed = transactions(streamed.readUntil(markerCommitted(), WAIT));
		List<List<Event>> expected = transactions(plainReader("origin_plain").readUntil(markerCommitted(), WAIT));
		assertThat(expected).hasSize(2);
		Event.Commit commit = (Event.Commit) expected.get(0).get(expected.get(0).size() - 1);
		assertThat(commit.origin()).isEqualTo(origin);
		assertThat(replayed).isEqualTo(expected);
		assertThat(streamed.tags()).as("Origin follows the first Stream Start").contains("SO");
	}

	@Test
	void newSessionStreamsAnOpenTransactionAgainFromItsFirstChangeThoughAcknowledgedPastItsStart() throws Exception {
		createSlots("again");
		StreamedEventsReader first = streamedReader("again", 64 * 1024);
		try (Connection session = this.database.connect()) {
			session.setAutoCommit(false);
			long xid = queryLong(session, "SELECT txid_current() % 4294967296");
			execute(session,
					"INSERT INTO items SELECT g, md5(g::text), 'ok', g, now() FROM generate_series(1, 10000) g");
			first.readUntilControl(PgOutputMessage.StreamStop.class::isInstance, WAIT);
			this.database.execute("INSERT INTO marker VALUES (1)");
			List<Event> events = first.readUntil(markerCommitted(1), WAIT);
			Event.Commit marker = (Event.Commit) events.get(events.size() - 1);
			assertThat(streams(first).hasOpenTransactions()).isTrue();
			first.acknowledge(marker.endLsn());
			await().atMost(WAIT)
				.until(() -> marker.endLsn().equals(Lsn.parse(slotColumn("again", "confirmed_flush_lsn"))));
			first.close();
			this.resources.remove(first);
			assertThat(spillFiles()).isEmpty();
			execute(session,
					"INSERT INTO items SELECT g, md5(g::text), 'ok', g, now() FROM generate_series(10001, 10010) g");
			session.commit();
			this.database.execute("INSERT INTO marker VALUES (2)");
			await().atMost(WAIT).until(() -> "false".equals(slotColumn("again", "active")));
			StreamedEventsReader second = streamedReader("again", 64 * 1024);
			List<List<Event>> transactions = transactions(second.readUntil(markerCommitted(2), WAIT));
			PgOutputMessage.StreamStart start = (PgOutputMessage.StreamStart) second.control().get(0);
			assertThat(start.xid()).isEqualTo(xid);
			assertThat(start.firstSegment()).isTrue();
			assertThat(transactions).hasSize(2);
			assertThat(xidOf(transactions.get(0))).isEqualTo(xid);
			List<Change> changes = transactions.get(0)
				.stream()
				.filter(Event.ChangeArrived.class::isInstance)
				.map((event) -> ((Event.ChangeArrived) event).change())
				.toList();
			assertThat(changes).hasSize(10010);
			assertThat(changes).extracting(Change::index)
				.containsExactlyElementsOf(java.util.stream.IntStream.range(0, 10010).boxed().toList());
			assertThat(changes).extracting((change) -> change.after().get("id"))
				.containsExactlyElementsOf(java.util.stream.IntStream.rangeClosed(1, 10010).boxed().toList());
		}
	}

	@Test
	void parallelStreamingOfProtocolFourOnlyAddsTheAbortsLsnAndTime() throws Exception {
		Assumptions.assumeTrue(this.database.serverVersion() >= 160000, "protocol 4 needs PostgreSQL 16");
		createSlots("flow_on", "flow_parallel");
		transaction("INSERT INTO items SELECT g, md5(g::text), 'ok', g, now() FROM generate_series(1, 3000) g",
				"SAVEPOINT a",
				"INSERT INTO items SELECT g, 'rolled back', 'sad', g, now() FROM generate_series(3001, 6000) g",
				"ROLLBACK TO SAVEPOINT a", "INSERT INTO items VALUES (0, 'after')");
		try (Connection session = this.database.connect()) {
			session.setAutoCommit(false);
			execute(session,
					"INSERT INTO items SELECT g, md5(g::text), 'ok', g, now() FROM generate_series(10001, 13000) g");
			session.rollback();
		}
		this.database.execute("INSERT INTO marker VALUES (1)");
		StreamedEventsReader on = streamedReader("flow_on", 64 * 1024);
		List<List<Event>> onTransactions = transactions(on.readUntil(markerCommitted(1), WAIT));
		StreamedTransactions parallelStreams = new StreamedTransactions(
				new StreamingOptions(64 * 1024, this.spillRoot, 1L << 30), "flow_parallel");
		StreamedEventsReader parallel = new StreamedEventsReader(new RawPgOutputStream(this.database, "flow_parallel",
				"pub", List.of("proto_version", "4", "streaming", "parallel", "binary", "true")), parallelStreams);
		this.resources.add(0, parallel);
		List<List<Event>> parallelTransactions = transactions(parallel.readUntil(markerCommitted(1), WAIT));
		List<PgOutputMessage.StreamAbort> onAborts = aborts(on);
		List<PgOutputMessage.StreamAbort> parallelAborts = aborts(parallel);
		System.out.println("[fact] protocol 2 'on' aborts " + onAborts + "; protocol 4 'parallel' aborts "
				+ parallelAborts + "; message types identical: " + on.tags().equals(parallel.tags()));
		assertThat(parallelTransactions).isEqualTo(onTransactions);
		assertThat(parallel.tags()).isEqualTo(on.tags());
		// Two aborts (a savepoint, then a whole transaction); one on PostgreSQL 18, which
		// does not stream a transaction it already knows to be aborted.
		assertThat(onAborts).isNotEmpty().allSatisfy((abort) -> {
			assertThat(abort.abortLsn()).isNull();
			assertThat(abort.abortTime()).isNull();
		});
		assertThat(parallelAborts).allSatisfy((abort) -> {
			assertThat(abort.abortLsn()).isNotNull();
			assertThat(abort.abortTime()).isNotNull();
		});
		assertThat(parallelAborts).extracting(PgOutputMessage.StreamAbort::xid, PgOutputMessage.StreamAbort::subXid)
			.isEqualTo(onAborts.stream()
				.map((abort) -> org.assertj.core.groups.Tuple.tuple(abort.xid(), abort.subXid()))
				.toList());
		assertThat(streams(on).hasOpenTransactions()).isFalse();
		assertThat(parallelStreams.hasOpenTransactions()).isFalse();
	}

	private static List<PgOutputMessage.StreamAbort> aborts(StreamedEventsReader reader) {
		return reader.control()
			.stream()
			.filter(PgOutputMessage.StreamAbort.class::isInstance)
			.map(PgOutputMessage.StreamAbort.class::cast)
			.toList();
	}

	private String slotColumn(String slot, String column) throws SQLException {
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

	private void createSlots(String... slots) {
		for (String slot : slots) {
			this.database.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
		}
	}

	private StreamedEventsReader streamedReader(String slot, long memory) throws SQLException {
		StreamedTransactions streams = new StreamedTransactions(new StreamingOptions(memory, this.spillRoot, 1L << 30),
				slot);
		StreamedEventsReader reader = new StreamedEventsReader(
				new RawPgOutputStream(this.database, slot, "pub", STREAMING), streams);
		this.resources.add(0, reader);
		this.streamsOf.put(reader, streams);
		return reader;
	}

	private StreamedTransactions streams(StreamedEventsReader reader) {
		return this.streamsOf.get(reader);
	}

	private StreamedEventsReader plainReader(String slot) throws SQLException {
		StreamedEventsReader reader = new StreamedEventsReader(
				new RawPgOutputStream(this.database, slot, "pub", PROTOCOL_1), null);
		this.resources.add(0, reader);
		return reader;
	}

	private static Predicate<Event> markerCommitted() {
		return markerCommitted(1);
	}

	private static Predicate<Event> markerCommitted(int id) {
		boolean[] seen = new boolean[1];
		return (event) -> {
			if (event instanceof Event.ChangeArrived arrived && arrived.change().table().name().equals("marker")
					&& Integer.valueOf(id).equals(arrived.change().after().get("id"))) {
				seen[0] = true;
			}
			return seen[0] && event instanceof Event.Commit;
		};
	}

	/** Groups events into transactions, leaving out those with nothing in them. */
	static List<List<Event>> transactions(List<Event> events) {
		List<List<Event>> transactions = new ArrayList<>();
		List<Event> open = null;
		for (Event event : events) {
			if (event instanceof Event.Begin) {
				open = new ArrayList<>();
			}
			if (open != null) {
				open.add(event);
			}
			if (event instanceof Event.Commit) {
				if (open != null && open.size() > 2) {
					transactions.add(open);
				}
				open = null;
			}
		}
		return transactions;
	}

	private static long count(List<PgOutputMessage> messages, Class<?> type) {
		return messages.stream().filter(type::isInstance).count();
	}

	private List<Path> spillFiles() throws java.io.IOException {
		try (Stream<Path> files = Files.walk(this.spillRoot)) {
			return files.filter((file) -> file.toString().endsWith(SpillDirectory.SUFFIX)).toList();
		}
	}

	private void transaction(String... sql) throws SQLException {
		try (Connection session = this.database.connect()) {
			session.setAutoCommit(false);
			for (String each : sql) {
				execute(session, each);
			}
			session.commit();
		}
	}

	private static void execute(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

	private static long queryLong(PostgresDatabase database, String sql) throws SQLException {
		try (Connection connection = database.connect()) {
			return queryLong(connection, sql);
		}
	}

	private static long queryLong(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
			row.next();
			return row.getLong(1);
		}
	}

}
