package io.postlog.snapshot;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.pgoutput.PgOutputDecoder;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.types.PgType;
import io.postlog.types.ValueDecoder;
import io.postlog.types.ValueDecoders;
import io.postlog.types.ValueDecodersIntegrationTests;
import io.postlog.types.ValueDecodersIntegrationTests.CatalogLookup;
import io.postlog.types.ValueDecodersIntegrationTests.Column;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The snapshot reader on a real server: values, chunking, publication column lists and
 * row filters, failures, cancellation and bounded read-ahead.
 */
@Tag("matrix")
@PostgresTest
class SnapshotReaderIntegrationTests {

	@Test
	void everyTypeDecodesThroughBinaryAndTextCopyToWhatPgoutputDelivers(PostgresDatabase database) throws Exception {
		int version = database.serverVersion();
		Map<String, Column> columns = ValueDecodersIntegrationTests.columns(version,
				ValueDecodersIntegrationTests.supportsXml(database));
		ValueDecodersIntegrationTests.createTable(database, "snap_types", columns);
		database.execute("CREATE PUBLICATION snap_types_pub FOR TABLE snap_types",
				"SELECT pg_create_logical_replication_slot('snap_types_slot', 'pgoutput')");
		ValueDecodersIntegrationTests.insertRows(database, "snap_types", columns);
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			statement.execute("SET TimeZone = 'Asia/Kolkata'");
			statement.execute("SET lc_monetary = 'C'");
			ValueDecoders decoders = ValueDecoders.standard().withLookup(new CatalogLookup(connection));
			Map<String, List<Row>> expected = new HashMap<>();
			expected.put("pgoutput text", pgoutputRows(statement, decoders, false));
			if (version >= 140000) {
				expected.put("pgoutput binary", pgoutputRows(statement, decoders, true));
			}
			int compared = 0;
			for (boolean binary : List.of(false, true)) {
				List<Row> snapshot = snapshotRows(database, decoders, binary);
				for (Map.Entry<String, List<Row>> streamed : expected.entrySet()) {
					assertThat(snapshot).hasSameSizeAs(streamed.getValue()).hasSize(3);
					for (int row = 0; row < snapshot.size(); row++) {
						assertThat(snapshot.get(row).columns()).isEqualTo(streamed.getValue().get(row).columns());
						for (String name : snapshot.get(row).columns()) {
							assertThat(ValueDecodersIntegrationTests.comparable(snapshot.get(row).get(name)))
								.as("%s in row %d, %s COPY vs %s", name, row, binary ? "binary" : "text",
										streamed.getKey())
								.isEqualTo(ValueDecodersIntegrationTests
									.comparable(streamed.getValue().get(row).get(name)));
							compared++;
						}
					}
				}
			}
			assertThat(compared).isGreaterThan(6 * columns.size());
		}
		finally {
			database.execute("SELECT pg_drop_replication_slot('snap_types_slot')");
		}
	}

	private static List<Row> snapshotRows(PostgresDatabase database, ValueDecoders decoders, boolean binary)
			throws SQLException {
		List<Row> rows = new ArrayList<>();
		try (ExportedSnapshot snapshot = temporarySnapshot(database, "snap_types_" + (binary ? "b" : "t"))) {
			reader(database, decoders).read(snapshot, List.of(TableId.parse("snap_types")),
					SnapshotOptions.defaults().withBinary(binary), (change) -> rows.add(change.after()));
		}
		rows.sort(Comparator.comparing((row) -> row.get("id", Integer.class)));
		return rows;
	}

	private static List<Row> pgoutputRows(Statement statement, ValueDecoders decoders, boolean binary)
			throws SQLException {
		RowDecoder rowDecoder = new RowDecoder(decoders);
		List<Row> rows = new ArrayList<>();
		try (ResultSet changes = statement.executeQuery("SELECT data FROM pg_logical_slot_peek_binary_changes("
				+ "'snap_types_slot', NULL, NULL, 'proto_version', '1', 'publication_names', 'snap_types_pub'"
				+ (binary ? ", 'binary', 'true'" : "") + ")")) {
			while (changes.next()) {
				PgOutputMessage message = PgOutputDecoder.decode(ByteBuffer.wrap(changes.getBytes(1)));
				if (message instanceof PgOutputMessage.Relation relation) {
					rowDecoder.relation(relation);
				}
				else if (message instanceof PgOutputMessage.Insert insert) {
					rows.add(rowDecoder.newRow(insert.relationId(), insert.newTuple()));
				}
			}
		}
		rows.sort(Comparator.comparing((row) -> row.get("id", Integer.class)));
		return rows;
	}

	@Test
	void chunkedReadDeliversEveryRowOnceWithIdsThatDoNotDependOnChunking(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE chunked (id int PRIMARY KEY, payload text)",
				"INSERT INTO chunked SELECT g, md5(g::text) FROM generate_series(1, 10000) g",
				"CREATE TABLE chunked_keyless (n int, payload text)",
				"INSERT INTO chunked_keyless SELECT g % 100, md5(g::text) FROM generate_series(1, 3000) g",
				"DELETE FROM chunked WHERE id % 7 = 0", "ANALYZE chunked", "ANALYZE chunked_keyless");
		List<TableId> tables = List.of(TableId.parse("chunked"), TableId.parse("chunked_keyless"));
		try (ExportedSnapshot snapshot = temporarySnapshot(database, "chunked")) {
			List<Change> small = new ArrayList<>();
			SnapshotReader smallChunks = reader(database, ValueDecoders.standard());
			SnapshotResult result = smallChunks.read(snapshot, tables,
					SnapshotOptions.defaults().withChunkSize(500).withParallelism(3), small::add);
			List<Change> whole = new ArrayList<>();
			reader(database, ValueDecoders.standard()).read(snapshot, tables,
					SnapshotOptions.defaults().withChunkSize(1_000_000).withParallelism(1), whole::add);

			assertThat(result.rows()).isEqualTo(small.size()).isEqualTo(10000 - 10000 / 7 + 3000);
			TableProgress keyed = result.tables().get(0);
			TableProgress keyless = result.tables().get(1);
			assertThat(keyed.chunksTotal()).isGreaterThan(5);
			assertThat(keyed.rowsDone()).isEqualTo(10000 - 10000 / 7);
			assertThat(keyed.done()).isTrue();
			assertThat(keyed.rowsEstimated()).isBetween(8000L, 10000L);
			assertThat(keyless.rowsDone()).isEqualTo(3000);
			if (database.serverVersion() >= 140000) {
				assertThat(keyless.chunksTotal()).isGreaterThan(1);
			}
			else {
				assertThat(keyless.chunksTotal()).as("no key to range over").isEqualTo(1);
			}
			assertThat(small).extracting(Change::id).doesNotHaveDuplicates();
			assertThat(small).extracting(Change::id)
				.containsExactlyInAnyOrderElementsOf(whole.stream().map(Change::id).toList());
			assertThat(small).allSatisfy((change) -> {
				assertThat(change.operation()).isEqualTo(Operation.SNAPSHOT);
				assertThat(change.before()).isNull();
				assertThat(change.xid()).isZero();
				assertThat(change.commitLsn()).isEqualTo(snapshot.consistentPoint());
				assertThat(change.commitTime()).isEqualTo(snapshot.createdAt());
			});
			Map<Object, Object> byKey = new HashMap<>();
			small.stream()
				.filter((change) -> change.table().name().equals("chunked"))
				.forEach((change) -> assertThat(byKey.put(change.after().get("id"), change.after().get("payload")))
					.isNull());
			assertThat(byKey).isEqualTo(table(database, "SELECT id, payload FROM chunked"));
		}
	}

	@Test
	void chunksAreReadByTidRangeScansFrom14AndByKeyRangesBefore(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE planned (id bigint PRIMARY KEY, payload text)",
				"INSERT INTO planned SELECT g, md5(g::text) FROM generate_series(1, 50000) g", "ANALYZE planned");
		try (ExportedSnapshot snapshot = temporarySnapshot(database, "planned");
				Connection connection = database.connect();
				Statement statement = connection.createStatement()) {
			statement.execute("BEGIN ISOLATION LEVEL REPEATABLE READ");
			statement.execute("SET TRANSACTION SNAPSHOT '" + snapshot.snapshotName() + "'");
			TablePlan plan = new TablePlanner(connection, snapshot.serverVersion(), ValueDecoders.standard(),
					SnapshotOptions.defaults().withChunkSize(5000))
				.plan(TableId.parse("planned"));
			assertThat(plan.chunks).hasSizeGreaterThan(5);
			String copy = plan.copySql(plan.chunks.get(2), true);
			String select = copy.substring("COPY (".length(), copy.lastIndexOf(") TO STDOUT"));
			String explained = explain(statement, select);
			if (database.serverVersion() >= 140000) {
				assertThat(plan.chunks.get(2).where()).startsWith("ctid >= ");
				assertThat(explained).contains("Tid Range Scan");
			}
			else {
				assertThat(plan.chunks.get(2).where()).matches("\"id\" >= \\d+ AND \"id\" < \\d+");
				assertThat(explained).containsAnyOf("Index Scan", "Bitmap Index Scan");
			}
			statement.execute("COMMIT");
		}
	}

	@Test
	void publicationColumnListAndRowFilterShapeTheSnapshot(PostgresDatabase database) throws Exception {
		assumeThat(database.serverVersion()).isGreaterThanOrEqualTo(150000);
		database.execute("CREATE TABLE filtered (id int PRIMARY KEY, shown text, hidden text, n int)",
				"INSERT INTO filtered SELECT g, 's' || g, 'h' || g, g % 3 FROM generate_series(1, 30) g",
				"CREATE PUBLICATION filtered_pub FOR TABLE filtered (id, shown, n) WHERE (n > 0)");
		List<Change> rows = new ArrayList<>();
		try (ExportedSnapshot snapshot = temporarySnapshot(database, "filtered")) {
			reader(database, ValueDecoders.standard()).read(snapshot, List.of(TableId.parse("filtered")),
					SnapshotOptions.defaults().withPublication("filtered_pub"), rows::add);
		}
		assertThat(rows).hasSize(20);
		assertThat(rows).allSatisfy((change) -> {
			assertThat(change.after().columns()).containsExactly("id", "shown", "n");
			assertThat(change.after().get("n", Integer.class)).isPositive();
		});
	}

	@Test
	void tableOutsideThePublicationIsRefused(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE unpublished (id int PRIMARY KEY)", "CREATE PUBLICATION empty_pub");
		try (ExportedSnapshot snapshot = temporarySnapshot(database, "unpublished")) {
			assertThatExceptionOfType(SnapshotReadException.class)
				.isThrownBy(() -> reader(database, ValueDecoders.standard()).read(snapshot,
						List.of(TableId.parse("unpublished")), SnapshotOptions.defaults().withPublication("empty_pub"),
						(change) -> {
						}))
				.withMessageContaining("does not publish table public.unpublished")
				.satisfies((ex) -> assertThat(ex.table()).isEqualTo(TableId.parse("unpublished")));
		}
	}

	@Test
	void partitionedTableIsReadThroughItsRootWithDistinctIds(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE parted (id int, payload text) PARTITION BY RANGE (id)",
				"CREATE TABLE parted_low PARTITION OF parted FOR VALUES FROM (0) TO (100)",
				"CREATE TABLE parted_high PARTITION OF parted FOR VALUES FROM (100) TO (200)",
				"INSERT INTO parted SELECT g, md5(g::text) FROM generate_series(0, 199) g");
		List<Change> rows = new ArrayList<>();
		try (ExportedSnapshot snapshot = temporarySnapshot(database, "parted")) {
			reader(database, ValueDecoders.standard()).read(snapshot, List.of(TableId.parse("parted")),
					SnapshotOptions.defaults(), rows::add);
		}
		assertThat(rows).hasSize(200).extracting(Change::id).doesNotHaveDuplicates();
		assertThat(rows).allSatisfy((change) -> assertThat(change.table()).isEqualTo(TableId.parse("parted")));
	}

	@Test
	void missingTableFailsNamingIt(PostgresDatabase database) throws Exception {
		try (ExportedSnapshot snapshot = temporarySnapshot(database, "missing")) {
			assertThatExceptionOfType(SnapshotReadException.class)
				.isThrownBy(() -> reader(database, ValueDecoders.standard()).read(snapshot,
						List.of(TableId.parse("no_such_table")), SnapshotOptions.defaults(), (change) -> {
						}))
				.withMessageContaining("public.no_such_table")
				.satisfies((ex) -> assertThat(ex.table()).isEqualTo(TableId.parse("no_such_table")));
		}
		awaitReadersGone(database);
	}

	@Test
	void decoderFailureNamesTableChunkAndColumnButNoValue(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE secrets (id int PRIMARY KEY, secret text)",
				"INSERT INTO secrets SELECT g, 'planted-secret-' || g FROM generate_series(1, 5000) g");
		ValueDecoders failing = ValueDecoders.standard().withDecoder(PgType.TEXT, new ValueDecoder() {

			@Override
			public Object decodeText(byte[] utf8) {
				throw new IllegalStateException("cannot read " + new String(utf8));
			}

			@Override
			public Object decodeBinary(byte[] value) {
				throw new IllegalStateException("cannot read " + new String(value));
			}

		});
		try (ExportedSnapshot snapshot = temporarySnapshot(database, "secrets")) {
			assertThatExceptionOfType(SnapshotReadException.class).isThrownBy(() -> reader(database, failing)
				.read(snapshot, List.of(TableId.parse("secrets")), SnapshotOptions.defaults(), (change) -> {
				}))
				.withMessageContaining("column 'secret' of table public.secrets (type OID 25)")
				.withMessageContaining("chunk 1 of ")
				.withMessageNotContaining("planted-secret")
				.satisfies((ex) -> {
					assertThat(ex.table()).isEqualTo(TableId.parse("secrets"));
					assertThat(ex.chunk()).startsWith("chunk 1 of ");
					assertThat(ex.getCause()).isNull();
				});
		}
		awaitReadersGone(database);
	}

	@Test
	void cancelFromAnotherThreadStopsTheReadAndClosesEveryConnection(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE cancelled (id int PRIMARY KEY, payload text)",
				"INSERT INTO cancelled SELECT g, md5(g::text) FROM generate_series(1, 100000) g");
		AtomicInteger delivered = new AtomicInteger();
		try (ExportedSnapshot snapshot = temporarySnapshot(database, "cancelled")) {
			SnapshotReader reader = reader(database, ValueDecoders.standard());
			Thread canceller = new Thread(() -> {
				await().until(() -> delivered.get() > 1000);
				reader.cancel();
			}, "test-canceller");
			canceller.start();
			assertThatExceptionOfType(SnapshotCancelledException.class)
				.isThrownBy(() -> reader.read(snapshot, List.of(TableId.parse("cancelled")),
						SnapshotOptions.defaults().withChunkSize(10_000).withParallelism(3), (change) -> {
							delivered.incrementAndGet();
							sleepMicros(50);
						}))
				.withMessageContaining("cancelled");
			canceller.join(10_000);
			assertThat(delivered.get()).isLessThan(100000);
			assertThat(readerThreads()).isEmpty();
		}
		awaitReadersGone(database);
	}

	@Test
	void sinkExceptionIsRethrownUnchangedAfterTheReadersEnded(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE failing_sink (id int PRIMARY KEY)",
				"INSERT INTO failing_sink SELECT g FROM generate_series(1, 20000) g");
		IllegalArgumentException failure = new IllegalArgumentException("listener failed");
		try (ExportedSnapshot snapshot = temporarySnapshot(database, "failing_sink")) {
			AtomicInteger calls = new AtomicInteger();
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> reader(database, ValueDecoders.standard()).read(snapshot,
						List.of(TableId.parse("failing_sink")), SnapshotOptions.defaults().withChunkSize(2000),
						(change) -> {
							if (calls.incrementAndGet() == 10) {
								throw failure;
							}
						}))
				.isSameAs(failure);
			assertThat(readerThreads()).isEmpty();
		}
		awaitReadersGone(database);
	}

	@Test
	void slowSinkKeepsTheReadAheadBounded(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE slow (id int PRIMARY KEY, n int)",
				"INSERT INTO slow SELECT g, g FROM generate_series(1, 100000) g");
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger delivered = new AtomicInteger();
		try (ExportedSnapshot snapshot = temporarySnapshot(database, "slow")) {
			SnapshotReader reader = reader(database, ValueDecoders.standard());
			Thread watcher = new Thread(() -> {
				await().until(() -> delivered.get() == 1);
				// The readers fill the hand-off and wait.
				await().pollDelay(Duration.ofMillis(500)).until(() -> true);
				long readAhead = reader.rowsRead();
				// Two batches per reader queued, one per reader waiting to be queued, and
				// the batch in delivery.
				assertThat(readAhead).isLessThanOrEqualTo((2 * 2 + 2 + 1) * ChunkReader.BATCH_ROWS);
				assertThat(readAhead).isGreaterThan(ChunkReader.BATCH_ROWS);
				release.countDown();
			}, "test-watcher");
			watcher.start();
			SnapshotResult result = reader.read(snapshot, List.of(TableId.parse("slow")),
					SnapshotOptions.defaults().withChunkSize(10_000), (change) -> {
						delivered.incrementAndGet();
						awaitLatch(release);
					});
			watcher.join(30_000);
			assertThat(release.getCount()).as("the watcher's checks passed").isZero();
			assertThat(result.rows()).isEqualTo(100000);
			assertThat(reader.rowsRead()).isEqualTo(100000);
		}
	}

	@Test
	void snapshotWhoseConnectionWasTakenIsRefused(PostgresDatabase database) throws Exception {
		ExportedSnapshot snapshot = temporarySnapshot(database, "taken");
		try (Connection replication = snapshot.takeConnection()) {
			assertThatIllegalStateException().isThrownBy(() -> reader(database, ValueDecoders.standard()).read(snapshot,
					List.of(), SnapshotOptions.defaults(), (change) -> {
					}))
				.withMessageContaining("no longer open");
		}
	}

	static ExportedSnapshot temporarySnapshot(PostgresDatabase database, String name) throws SQLException {
		return ExportedSnapshot.create(database.connectReplication(), name + "_snap", true);
	}

	static SnapshotReader reader(PostgresDatabase database, ValueDecoders decoders) {
		return new SnapshotReader(SnapshotConnections.of(database.jdbcUrl(), database.username(), null), decoders);
	}

	static Set<String> readerThreads() {
		Set<String> names = new HashSet<>();
		Thread.getAllStackTraces().keySet().forEach((thread) -> {
			if (thread.getName().startsWith("postlog-snapshot-") && thread.isAlive()) {
				names.add(thread.getName());
			}
		});
		return names;
	}

	static void awaitReadersGone(PostgresDatabase database) {
		await().atMost(Duration.ofSeconds(20)).until(() -> {
			try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
				return ExportedSnapshotIntegrationTests.count(statement,
						"SELECT count(*) FROM pg_stat_activity WHERE application_name = 'postlog-snapshot'") == 0;
			}
		});
	}

	private static Map<Object, Object> table(PostgresDatabase database, String sql) throws SQLException {
		Map<Object, Object> rows = new HashMap<>();
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery(sql)) {
			while (row.next()) {
				rows.put(row.getObject(1), row.getObject(2));
			}
		}
		return rows;
	}

	private static String explain(Statement statement, String select) throws SQLException {
		StringBuilder plan = new StringBuilder();
		try (ResultSet row = statement.executeQuery("EXPLAIN " + select)) {
			while (row.next()) {
				plan.append(row.getString(1)).append('\n');
			}
		}
		return plan.toString();
	}

	private static void awaitLatch(CountDownLatch latch) {
		try {
			assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void sleepMicros(long micros) {
		long end = System.nanoTime() + micros * 1000;
		while (System.nanoTime() < end) {
			Thread.onSpinWait();
		}
	}

}
