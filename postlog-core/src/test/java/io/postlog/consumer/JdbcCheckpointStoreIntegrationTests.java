package io.postlog.consumer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.checkpoint.CheckpointConflictException;
import io.postlog.consumer.checkpoint.CheckpointStoreException;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static io.postlog.consumer.ReplicationConsumerIntegrationTests.confirmedFlush;
import static io.postlog.consumer.ReplicationConsumerIntegrationTests.currentLsn;
import static io.postlog.consumer.ReplicationConsumerIntegrationTests.query;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@link JdbcCheckpointStore} on a real server, alone and under a consumer: the table is
 * created or refused, names are quoted, the checkpoint commits with the handlers' work, a
 * second writer of the same slot's row loses, and a consumer skips what the checkpoint
 * covers and writes a failed transaction's effects once.
 */
@PostgresTest
@Tag("matrix")
class JdbcCheckpointStoreIntegrationTests {

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void initializeCreatesTheDocumentedTableWhenMissing(PostgresDatabase database) throws Exception {
		JdbcCheckpointStore store = JdbcCheckpointStore.of(dataSource(database), "created_slot");
		store.initialize();
		assertThat(query(database,
				"SELECT string_agg(column_name || ' ' || data_type || ' ' || is_nullable, ', ' ORDER BY ordinal_position) "
						+ "FROM information_schema.columns WHERE table_name = 'postlog_checkpoint'"))
			.isEqualTo("slot_name text NO, commit_lsn pg_lsn NO, updated_at timestamp with time zone NO");
		assertThat(query(database,
				"SELECT count(*) FROM pg_index WHERE indrelid = 'postlog_checkpoint'::regclass " + "AND indisprimary"))
			.isEqualTo("1");
		assertThat(store.load()).isEqualTo(Lsn.INVALID);
	}

	@Test
	void aMissingTableIsRefusedWithItsDdlWhenCreatingIsNotAllowed(PostgresDatabase database) {
		JdbcCheckpointStore store = JdbcCheckpointStore.builder(dataSource(database), "refused_slot")
			.table("not_there")
			.createTable(false)
			.build();
		assertThatExceptionOfType(CheckpointStoreException.class).isThrownBy(store::initialize)
			.withMessageContaining("not_there")
			.withMessageContaining("refused_slot")
			.withMessageContaining(store.table().ddl());
	}

	@Test
	void tableNamesAreQuotedAndMayBeSchemaQualified(PostgresDatabase database) throws Exception {
		database.execute("CREATE SCHEMA \"Sink Schema\"");
		JdbcCheckpointStore store = JdbcCheckpointStore.builder(dataSource(database), "quoted_slot")
			.table("Sink Schema.Check\"point; DROP TABLE x")
			.build();
		store.begin();
		store.commit(Lsn.parse("0/1A2B3C"));
		assertThat(query(database,
				"SELECT commit_lsn::text FROM \"Sink Schema\".\"Check\"\"point; DROP TABLE x\" WHERE slot_name = 'quoted_slot'"))
			.isEqualTo("0/1A2B3C");
		assertThat(store.load()).isEqualTo(Lsn.parse("0/1A2B3C"));
	}

	@Test
	void shapesCommitWithTheCheckpointOrNotAtAllBesideACheckpointTableThatHasNoShapes(PostgresDatabase database)
			throws Exception {
		JdbcCheckpointStore store = JdbcCheckpointStore.builder(dataSource(database), "shapes_slot")
			.table("shapes_checkpoint")
			.build();
		store.begin();
		store.commit(Lsn.parse("0/100"));
		assertThat(store.shapes()).as("no shape table yet: none kept, none created").isEmpty();
		assertThat(query(database, "SELECT to_regclass('shapes_checkpoint_shapes') IS NULL")).isEqualTo("t");

		store.begin();
		Map<Long, String> first = new HashMap<>();
		first.put(4_000_000_000L, "shape one");
		first.put(16384L, "shape two");
		store.recordShapes(first);
		store.rollback();
		assertThat(store.shapes()).isEmpty();
		assertThat(store.load()).isEqualTo(Lsn.parse("0/100"));

		store.begin();
		store.recordShapes(first);
		store.commit(Lsn.parse("0/200"));
		assertThat(store.shapes()).isEqualTo(first);
		store.begin();
		Map<Long, String> next = new HashMap<>();
		next.put(4_000_000_000L, null);
		next.put(16384L, "shape three");
		store.recordShapes(next);
		store.commit(Lsn.parse("0/300"));
		assertThat(store.shapes()).isEqualTo(Map.of(16384L, "shape three"));
		assertThat(store.load()).isEqualTo(Lsn.parse("0/300"));
	}

	@Test
	void invalidNamesAreRefusedBeforeAnySql() {
		PGSimpleDataSource unused = new PGSimpleDataSource();
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> JdbcCheckpointStore.builder(unused, "slot").table("a.b.c").build());
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> JdbcCheckpointStore.builder(unused, "slot").table("").build());
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> JdbcCheckpointStore.builder(unused, "slot").table("x".repeat(64)).build());
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> JdbcCheckpointStore.of(unused, "Not A Slot"));
	}

	@Test
	void handlersWorkCommitsWithTheCheckpointOrNotAtAll(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE atomic_sink (k int)");
		JdbcCheckpointStore store = JdbcCheckpointStore.of(dataSource(database), "atomic_slot");
		assertThat(store.load()).isEqualTo(Lsn.INVALID);
		store.begin();
		insert(store.connection(), "atomic_sink", 1);
		store.rollback();
		assertThat(query(database, "SELECT count(*) FROM atomic_sink")).isEqualTo("0");
		assertThat(store.load()).isEqualTo(Lsn.INVALID);

		store.begin();
		insert(store.connection(), "atomic_sink", 2);
		store.commit(Lsn.parse("0/100"));
		store.begin();
		insert(store.connection(), "atomic_sink", 3);
		store.commit(Lsn.parse("0/200"));
		assertThat(query(database, "SELECT string_agg(k::text, ',' ORDER BY k) FROM atomic_sink")).isEqualTo("2,3");
		assertThat(store.load()).isEqualTo(Lsn.parse("0/200"));
		assertThat(query(database, "SELECT count(*) FROM postlog_checkpoint WHERE slot_name = 'atomic_slot' "
				+ "AND updated_at > now() - interval '1 minute'"))
			.isEqualTo("1");
	}

	@Test
	void theSinkConnectionIsTheConsumersToCommit(PostgresDatabase database) throws Exception {
		JdbcCheckpointStore store = JdbcCheckpointStore.of(dataSource(database), "guarded_slot");
		assertThatIllegalStateException().isThrownBy(store::connection).withMessageContaining("No sink transaction");
		store.load();
		store.begin();
		Connection connection = store.connection();
		assertThatExceptionOfType(SQLException.class).isThrownBy(connection::commit)
			.withMessageContaining("belongs to the consumer");
		assertThatExceptionOfType(SQLException.class).isThrownBy(() -> connection.setAutoCommit(true));
		assertThatExceptionOfType(SQLException.class).isThrownBy(connection::rollback);
		connection.close();
		assertThat(store.connection().isClosed()).isFalse();
		store.commit(Lsn.parse("0/10"));
		assertThatIllegalStateException().isThrownBy(store::connection);
		assertThatIllegalStateException().isThrownBy(() -> store.commit(Lsn.parse("0/20")));
	}

	@Test
	void aSecondWriterOfTheSameSlotsCheckpointCannotCommitPastTheFirst(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE fenced_sink (k int)");
		JdbcCheckpointStore first = JdbcCheckpointStore.of(dataSource(database), "fenced_slot");
		JdbcCheckpointStore second = JdbcCheckpointStore.of(dataSource(database), "fenced_slot");
		first.load();
		second.load();
		// Both start from "no checkpoint"; the first commits, the second must not.
		first.begin();
		second.begin();
		insert(first.connection(), "fenced_sink", 1);
		insert(second.connection(), "fenced_sink", 1);
		first.commit(Lsn.parse("0/100"));
		assertThatExceptionOfType(CheckpointConflictException.class).isThrownBy(() -> second.commit(Lsn.parse("0/100")))
			.withMessageContaining("fenced_slot")
			.withMessageContaining("absent");
		// After reading it again, the second goes on from where the first left it.
		assertThat(second.load()).isEqualTo(Lsn.parse("0/100"));
		first.begin();
		second.begin();
		insert(second.connection(), "fenced_sink", 2);
		second.commit(Lsn.parse("0/200"));
		insert(first.connection(), "fenced_sink", 2);
		assertThatExceptionOfType(CheckpointConflictException.class).isThrownBy(() -> first.commit(Lsn.parse("0/200")))
			.satisfies((ex) -> assertThat(ex.expected()).isEqualTo(Lsn.parse("0/100")));
		assertThat(query(database, "SELECT string_agg(k::text, ',' ORDER BY k) FROM fenced_sink")).isEqualTo("1,2");
	}

	@Test
	void consumerSkipsWhatTheCheckpointCoversOnARealServer(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE skip_source (k int PRIMARY KEY)", "CREATE TABLE skip_sink (k int)");
		try (Connection connection = database.connect()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			admin.ensurePublication("skip_pub", PublicationMode.CREATE_IF_MISSING,
					List.of(TableId.parse("skip_source")));
			admin.ensureSlot("skip_slot", SlotLifecycle.CREATE_IF_MISSING);
			admin.ensureSlot("skip_probe", SlotLifecycle.CREATE_IF_MISSING);
		}
		for (int k = 1; k <= 3; k++) {
			database.execute("INSERT INTO skip_source VALUES (" + k + ")");
		}
		// A probe slot tells the commit LSN of each transaction.
		Map<Integer, Lsn> commits = new ConcurrentHashMap<>();
		ReplicationConsumer probe = start(builder(database, "skip_probe", "skip_pub", "skip_source")
			.changeHandler((change) -> commits.put(key(change), change.commitLsn())));
		await().until(() -> commits.size() == 3);
		probe.stop();
		JdbcCheckpointStore store = JdbcCheckpointStore.of(dataSource(database), "skip_slot");
		store.initialize();
		database.execute("INSERT INTO postlog_checkpoint VALUES ('skip_slot', '" + commits.get(2) + "', now())");

		List<Integer> called = new ArrayList<>();
		Lsn end = currentLsn(database);
		start(builder(database, "skip_slot", "skip_pub", "skip_source").checkpointStore(store)
			.changeHandler((change) -> {
				called.add(key(change));
				insert(store.connection(), "skip_sink", key(change));
			}));
		await().until(() -> confirmedFlush(database, "skip_slot").compareTo(end) >= 0);
		assertThat(called).containsExactly(3);
		assertThat(query(database, "SELECT string_agg(k::text, ',') FROM skip_sink")).isEqualTo("3");
		if (database.serverVersion() >= 150000) {
			assertThat(store.load()).isEqualTo(commits.get(3));
		}
		else {
			// Before 15 the stream also carries the checkpoint's own writes, as empty
			// transactions, and the checkpoint moves on with them.
			assertThat(store.load()).isGreaterThanOrEqualTo(commits.get(3));
		}
	}

	@Test
	void aHandlerThatFailsAfterWritingHasItsWritesRolledBackAndTheRetryWritesOnce(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE retry_source (k int PRIMARY KEY)", "CREATE TABLE retry_sink (k int)");
		JdbcCheckpointStore store = JdbcCheckpointStore.of(dataSource(database), "retry_slot");
		AtomicInteger failures = new AtomicInteger(2);
		List<Integer> sinkRowsSeenAtRetry = new ArrayList<>();
		start(builder(database, "retry_slot", "retry_pub", "retry_source").checkpointStore(store)
			.retryPolicy(new RetryPolicy(Duration.ofMillis(50), 2, Duration.ofMillis(200), 5))
			.changeHandler((change) -> {
				if (key(change) == 1) {
					sinkRowsSeenAtRetry.add(Integer.valueOf(query(database, "SELECT count(*) FROM retry_sink")));
				}
				insert(store.connection(), "retry_sink", key(change));
				if (key(change) == 2 && failures.getAndDecrement() > 0) {
					throw new IllegalStateException("after writing");
				}
			}));
		database.execute("INSERT INTO retry_source VALUES (1), (2), (3)");
		database.execute("INSERT INTO retry_source VALUES (4)");
		Lsn end = currentLsn(database);
		await().atMost(Duration.ofSeconds(30)).until(() -> confirmedFlush(database, "retry_slot").compareTo(end) >= 0);
		assertThat(query(database, "SELECT string_agg(k::text, ',' ORDER BY k) FROM retry_sink")).isEqualTo("1,2,3,4");
		assertThat(query(database, "SELECT count(*) FROM retry_sink")).isEqualTo("4");
		// Two attempts rolled back: another session never saw their rows.
		assertThat(sinkRowsSeenAtRetry).containsExactly(0, 0, 0);
	}

	private ReplicationConsumer.Builder builder(PostgresDatabase database, String slot, String publication,
			String table) {
		return ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName(slot)
			.publicationName(publication)
			.tables(List.of(new TableId("public", table)))
			.statusInterval(Duration.ofSeconds(1))
			.stopTimeout(Duration.ofSeconds(10));
	}

	private ReplicationConsumer start(ReplicationConsumer.Builder builder) {
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		consumer.start();
		return consumer;
	}

	private static int key(Change change) {
		return change.after().get("k", Integer.class);
	}

	private static void insert(Connection connection, String table, int k) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("INSERT INTO " + table + " VALUES (?)")) {
			statement.setInt(1, k);
			statement.executeUpdate();
		}
	}

	static PGSimpleDataSource dataSource(PostgresDatabase database) {
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setURL(database.jdbcUrl());
		dataSource.setUser(database.username());
		return dataSource;
	}

}
