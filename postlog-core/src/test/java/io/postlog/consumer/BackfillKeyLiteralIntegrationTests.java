package io.postlog.consumer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The backfill's key literal, the one place row values become SQL text: with chunks of
 * one or two rows every key is the lower bound of the next chunk, so keys holding quotes,
 * backslashes, an injection attempt, non-ASCII text and the empty string each become a
 * literal. Every row arrives exactly once and the table is left as it was, in text and
 * binary mode, for a text key, a composite (text, int) key, a key whose text the reader
 * makes from its values and one whose text it reads.
 */
@Tag("matrix")
@PostgresTest
class BackfillKeyLiteralIntegrationTests {

	static final List<String> KEYS = List.of("plain", "O'Brien", "''", "'", "back\\slash", "trailing\\", "\\'",
			"'); DROP TABLE %s; --", "\" OR 1=1 --", "$$dollar$$", "E'\\x41'", "ünïcødé ✓ 日本語 😀", "tab\tand\nnewline",
			"", " ", "%_*", "a,b)", "(x", "Ω");

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@ParameterizedTest(name = "binary={0}")
	@ValueSource(booleans = { false, true })
	void textKeysEachBecomeALiteralAndEveryRowArrivesOnce(boolean binary, PostgresDatabase database) throws Exception {
		String table = "bf_text_" + binary;
		database.execute("CREATE TABLE " + table + " (k text PRIMARY KEY, v int NOT NULL)");
		List<String> keys = keys(table);
		try (Connection connection = database.connect();
				PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table + " VALUES (?, ?)")) {
			for (int i = 0; i < keys.size(); i++) {
				insert.setString(1, keys.get(i));
				insert.setInt(2, i);
				insert.addBatch();
			}
			insert.executeBatch();
		}
		Map<String, AtomicInteger> seen = backfill(database, table, binary, 1,
				(change) -> change.after().get("k", String.class));
		assertEachOnce(seen, keys, database, table);
	}

	@ParameterizedTest(name = "binary={0}")
	@ValueSource(booleans = { false, true })
	void compositeKeysEachBecomeALiteralAndEveryRowArrivesOnce(boolean binary, PostgresDatabase database)
			throws Exception {
		String table = "bf_composite_" + binary;
		database.execute("CREATE TABLE " + table + " (name text, n int, v text, PRIMARY KEY (name, n))");
		List<String> keys = keys(table);
		List<String> expected = new ArrayList<>();
		try (Connection connection = database.connect();
				PreparedStatement insert = connection
					.prepareStatement("INSERT INTO " + table + " VALUES (?, ?, 'value')")) {
			for (String key : keys) {
				for (int n : new int[] { -1, 0, 7 }) {
					insert.setString(1, key);
					insert.setInt(2, n);
					insert.addBatch();
					expected.add(key + "|" + n);
				}
			}
			insert.executeBatch();
		}
		Map<String, AtomicInteger> seen = backfill(database, table, binary, 2,
				(change) -> change.after().get("name", String.class) + "|" + change.after().get("n", Integer.class));
		assertEachOnce(seen, expected, database, table);
	}

	/**
	 * A key of {@code uuid}, {@code bigint} and {@code smallint}, whose text the reader
	 * makes from the decoded values instead of reading it: every value must spell the
	 * server's text form, or a chunk would go on from the wrong key.
	 */
	@ParameterizedTest(name = "binary={0}")
	@ValueSource(booleans = { false, true })
	void keysMadeFromValuesEachBecomeALiteralAndEveryRowArrivesOnce(boolean binary, PostgresDatabase database)
			throws Exception {
		String table = "bf_values_" + binary;
		database.execute("CREATE TABLE " + table + " (u uuid, n bigint, s smallint, v text, PRIMARY KEY (u, n, s))");
		List<String> expected = new ArrayList<>();
		try (Connection connection = database.connect();
				PreparedStatement insert = connection
					.prepareStatement("INSERT INTO " + table + " VALUES (?::uuid, ?, ?, 'value')")) {
			for (String uuid : List.of("00000000-0000-0000-0000-000000000000", "0f8fad5b-d9cb-469f-a165-70867728950e",
					"FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")) {
				for (long n : new long[] { Long.MIN_VALUE, -1, 0, 9, 10, Long.MAX_VALUE }) {
					for (short s : new short[] { Short.MIN_VALUE, 0, Short.MAX_VALUE }) {
						insert.setString(1, uuid);
						insert.setLong(2, n);
						insert.setShort(3, s);
						insert.addBatch();
						expected.add(uuid.toLowerCase(java.util.Locale.ROOT) + "|" + n + "|" + s);
					}
				}
			}
			insert.executeBatch();
		}
		Map<String, AtomicInteger> seen = backfill(database, table, binary, 2,
				(change) -> change.after().get("u") + "|" + change.after().get("n") + "|" + change.after().get("s"));
		assertEachOnce(seen, expected, database, table);
	}

	/**
	 * A key whose decoded value does not spell its text ({@code numeric} keeps its scale
	 * in text, {@code timestamptz} its format): the reader reads the key's text.
	 */
	@ParameterizedTest(name = "binary={0}")
	@ValueSource(booleans = { false, true })
	void keysReadAsTextEachBecomeALiteralAndEveryRowArrivesOnce(boolean binary, PostgresDatabase database)
			throws Exception {
		String table = "bf_read_text_" + binary;
		database.execute("CREATE TABLE " + table + " (d numeric, t timestamptz, v text, PRIMARY KEY (d, t))");
		List<String> expected = new ArrayList<>();
		try (Connection connection = database.connect();
				PreparedStatement insert = connection
					.prepareStatement("INSERT INTO " + table + " VALUES (?::numeric, ?::timestamptz, 'value')")) {
			for (String d : List.of("-1.50", "0.000", "1.5000000000000000000001", "1e20", "NaN")) {
				for (String t : List.of("2026-12-07 00:00:00+00", "2026-12-07 00:00:00.000001+00", "infinity")) {
					insert.setString(1, d);
					insert.setString(2, t);
					insert.addBatch();
					expected.add(d + "|" + t);
				}
			}
			insert.executeBatch();
		}
		Map<String, AtomicInteger> seen = backfill(database, table, binary, 2,
				(change) -> change.after().get("d") + "|" + change.after().get("t"));
		assertThat(seen).hasSize(expected.size());
		assertThat(seen.values()).allSatisfy((count) -> assertThat(count.get()).isOne());
		assertThat(count(database, table)).isEqualTo(expected.size());
	}

	private Map<String, AtomicInteger> backfill(PostgresDatabase database, String table, boolean binary, int chunk,
			java.util.function.Function<Change, String> key) throws Exception {
		Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
		ReplicationConsumer consumer = BackfillIntegrationTests.builder(database, table + "_slot", table, chunk)
			.binary(binary)
			.changeHandler((change) -> {
				if (change.operation() == Operation.SNAPSHOT) {
					seen.computeIfAbsent(key.apply(change), (k) -> new AtomicInteger()).incrementAndGet();
				}
			})
			.build();
		this.consumers.add(consumer);
		consumer.start();
		await().atMost(Duration.ofMinutes(1)).until(() -> consumer.state() == ConsumerState.RUNNING);
		Backfill backfill = consumer.backfill(List.of(new TableId("public", table)));
		await().atMost(Duration.ofMinutes(2))
			.until(() -> backfill.state() == Backfill.State.COMPLETED || backfill.state() == Backfill.State.FAILED);
		assertThat(backfill.failure()).isNull();
		assertThat(backfill.state()).isEqualTo(Backfill.State.COMPLETED);
		return seen;
	}

	/**
	 * Asserts that each expected key arrived exactly once, and that the table still holds
	 * that many rows.
	 */
	private static void assertEachOnce(Map<String, AtomicInteger> seen, List<String> expected,
			PostgresDatabase database, String table) throws Exception {
		assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(expected);
		assertThat(seen.values()).allSatisfy((count) -> assertThat(count.get()).isOne());
		assertThat(count(database, table)).isEqualTo(expected.size());
	}

	private static List<String> keys(String table) {
		return KEYS.stream().map((key) -> key.replace("%s", table)).toList();
	}

	private static int count(PostgresDatabase database, String table) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table)) {
			rows.next();
			return rows.getInt(1);
		}
	}

}
