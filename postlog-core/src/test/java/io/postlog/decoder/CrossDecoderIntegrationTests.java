package io.postlog.decoder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.UnchangedToast;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.test.PluginLaneTest;
import io.postlog.test.PostgresDatabase;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One workload delivered by a {@link ReplicationConsumer} through pgoutput, wal2json and
 * pglogical_output, all with text values (binary ones of types postlog does not map are
 * raw bytes, not text), on the plugin lane's PostgreSQL 15: a row of every type of the
 * Values table (typical, special and NULL values), an update leaving a TOASTed column
 * unchanged, and under each replica identity (default, index, full) an insert, an update,
 * an update of the key and a delete. The lists of {@link Transaction}s a transaction
 * handler receives must be equal once the commit LSN, end LSN, xid, commit time and
 * change ids are set aside (they are compared separately: the plugins report the same
 * ones); a leg that delivers less fails the test.
 */
@PluginLaneTest
class CrossDecoderIntegrationTests {

	private static final String VALUE_COLUMNS = "c_bool bool, c_int2 int2, c_int4 int4, c_int8 int8, c_oid oid, "
			+ "c_float4 float4, c_float8 float8, c_numeric numeric, c_text text, c_varchar varchar(20), "
			+ "c_bpchar char(5), c_name name, c_char \"char\", c_xml xml, c_json json, c_jsonb jsonb, c_bytea bytea, "
			+ "c_uuid uuid, c_date date, c_time time, c_timetz timetz, c_timestamp timestamp, "
			+ "c_timestamptz timestamptz, c_interval interval, c_inet inet, c_cidr cidr, c_macaddr macaddr, "
			+ "c_macaddr8 macaddr8, c_money money, c_bit bit(4), c_varbit varbit, c_int2vector int2vector, "
			+ "c_oidvector oidvector, c_int4_array int4[], c_text_array text[], c_int4_matrix int4[], "
			+ "c_float8_array float8[], c_numeric_array numeric[], c_bytea_array bytea[], c_enum mood, "
			+ "c_enum_array mood[], c_domain posint, c_any_float any_float, c_point point, c_big text";

	/**
	 * Finite values in float and numeric columns: wal2json 2.5 sends their NaN as null.
	 */
	private static final String TYPICAL = "(1, true, 12, 123456, 9007199254740993, 4000000000, 1.5, "
			+ "3.141592653589793, 12345.6789, 'héllo wörld', 'varchar', 'ab', 'a_name', 'c', '<a>x</a>', "
			+ "'{\"a\": [1, 2]}', '{\"b\": {\"c\": null}}', '\\x00ff10', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', "
			+ "'2024-02-29', '13:45:56.123456', '13:45:56.123456+02', '2024-02-29 13:45:56.123456', "
			+ "'2024-02-29 13:45:56.123456+00', '1 year 2 mons 3 days 04:05:06.789', '192.168.1.10', '10.0.0.0/8', "
			+ "'08:00:2b:01:02:03', '08:00:2b:01:02:03:04:05', 12.34, B'1010', B'101', '1 2 -3', '23 4294967295', "
			+ "'{1,2,NULL,4}', '{\"a\",\"b c\",NULL,\"d\\\"e\"}', '{{1,2},{3,4}}', '{1.5,NaN,Infinity,-Infinity}', "
			+ "'{1.50,NaN,Infinity}', '{\"\\\\x00\",NULL}', 'happy', '{sad,happy}', 7, 'NaN', '(1.5,2)', "
			+ "repeat('x', 10000))";

	private static final String SPECIAL = "(2, false, -32768, -2147483648, -9223372036854775808, 0, "
			+ "'1.17549435e-38', '-1.7976931348623157e308', '-0.000000001', '', '', ' ', '', ' ', '<b/>', '[]', '{}', "
			+ "'', '00000000-0000-0000-0000-000000000000', '0001-01-01 BC', '24:00:00', '23:59:59.999999-12', "
			+ "'-infinity', 'infinity', '-1 mons -2 days -00:00:00.000001', '::1', '2001:db8::/32', "
			+ "'ff:ff:ff:ff:ff:ff', '00:00:00:00:00:00:00:00', -92233720368547758.08, B'0000', B'', '', '', '{}', "
			+ "'{}', '{}', '{}', '{}', '{}', 'sad', '{}', 1, '-Infinity', '(0,0)', 'short')";

	private static final List<TableId> TABLES = List.of(TableId.parse("everything"), TableId.parse("by_default"),
			TableId.parse("by_index"), TableId.parse("by_full"));

	private static final int TRANSACTIONS = 17;

	private final PostgresDatabase database;

	CrossDecoderIntegrationTests(PostgresDatabase database) {
		this.database = database;
	}

	@Test
	void consumersOfPgoutputWal2jsonAndPglogicalDeliverEqualTransactions() throws Exception {
		createSchema();
		int version = this.database.serverVersion();
		DecoderCatalog catalog = DecoderCatalog.opening(this.database::connect);
		DecoderRequest text = DecoderRequest.text();
		Map<String, LogicalDecoder> decoders = new LinkedHashMap<>();
		decoders.put("pgoutput", PgOutputLogicalDecoder.forPublications(List.of("cross_pub")));
		decoders.put("wal2json", Wal2JsonDecoder.forTables(TABLES).allowingNonFiniteNumbersAsNull(true));
		decoders.put("pglogical", PgLogicalDecoder.forReplicationSets(List.of("cross_set")));
		for (Map.Entry<String, LogicalDecoder> decoder : decoders.entrySet()) {
			assertThat(decoder.getValue().check(version, text, catalog)).as(decoder.getKey()).isEqualTo(text);
			this.database.execute("SELECT pg_create_logical_replication_slot('cross_" + decoder.getKey() + "', '"
					+ decoder.getValue().plugin() + "')");
		}
		workload();
		Map<String, List<Transaction>> legs = new LinkedHashMap<>();
		for (Map.Entry<String, LogicalDecoder> decoder : decoders.entrySet()) {
			legs.put(decoder.getKey(), read("cross_" + decoder.getKey(), decoder.getValue()));
		}
		List<Transaction> pgoutput = legs.get("pgoutput");
		sanity(pgoutput);
		for (Map.Entry<String, List<Transaction>> leg : legs.entrySet()) {
			assertThat(leg.getValue()).as("transactions of %s", leg.getKey()).hasSize(TRANSACTIONS);
			for (int i = 0; i < TRANSACTIONS; i++) {
				Transaction expected = pgoutput.get(i);
				Transaction actual = leg.getValue().get(i);
				assertThat(normalised(actual)).as("transaction %d of %s", i, leg.getKey())
					.isEqualTo(normalised(expected));
				assertThat(List.of(actual.commitLsn(), actual.endLsn(), actual.xid(), actual.commitTime()))
					.as("positions of transaction %d of %s", i, leg.getKey())
					.isEqualTo(List.of(expected.commitLsn(), expected.endLsn(), expected.xid(), expected.commitTime()));
			}
		}
	}

	private void createSchema() {
		this.database.execute("CREATE EXTENSION pglogical",
				"SELECT pglogical.create_node(node_name := 'cross', dsn := 'dbname=" + this.database.name() + "')",
				"CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')", "CREATE DOMAIN posint AS int4 CHECK (VALUE > 0)",
				"CREATE DOMAIN any_float AS float8",
				"CREATE TABLE everything (id int4 PRIMARY KEY, " + VALUE_COLUMNS + ")",
				"ALTER TABLE everything ALTER COLUMN c_big SET STORAGE EXTERNAL",
				"CREATE TABLE by_default (id int4 PRIMARY KEY, v text, g int4 GENERATED ALWAYS AS (id * 10) STORED)",
				"CREATE TABLE by_index (id int4 PRIMARY KEY, code int4 NOT NULL, v text)",
				"CREATE UNIQUE INDEX by_index_code ON by_index (code)",
				"ALTER TABLE by_index REPLICA IDENTITY USING INDEX by_index_code",
				"CREATE TABLE by_full (id int4 PRIMARY KEY, v text, big text)",
				"ALTER TABLE by_full ALTER COLUMN big SET STORAGE EXTERNAL",
				"CREATE PUBLICATION cross_pub FOR TABLE everything, by_default, by_index, by_full",
				"SELECT pglogical.create_replication_set('cross_set')",
				"SELECT pglogical.replication_set_add_table('cross_set', 'everything')",
				"SELECT pglogical.replication_set_add_table('cross_set', 'by_default')",
				"SELECT pglogical.replication_set_add_table('cross_set', 'by_index')",
				"SELECT pglogical.replication_set_add_table('cross_set', 'by_full')",
				// pglogical adds no REPLICA IDENTITY FULL table to a set replicating
				// updates, but streams one made FULL afterwards.
				"ALTER TABLE by_full REPLICA IDENTITY FULL");
	}

	/** {@value #TRANSACTIONS} transactions, each with changes. */
	private void workload() {
		this.database.execute("BEGIN", "INSERT INTO everything VALUES " + TYPICAL,
				"INSERT INTO everything VALUES " + SPECIAL, "INSERT INTO everything (id) VALUES (3)", "COMMIT",
				"UPDATE everything SET c_int4 = 99 WHERE id = 1",
				"INSERT INTO by_default (id, v) VALUES (1, 'a'), (2, 'b')",
				"UPDATE by_default SET v = 'c' WHERE id = 1", "UPDATE by_default SET id = 3 WHERE id = 1",
				"DELETE FROM by_default WHERE id = 3", "INSERT INTO by_index VALUES (1, 10, 'a')",
				"UPDATE by_index SET v = 'b'", "UPDATE by_index SET code = 11", "DELETE FROM by_index",
				"INSERT INTO by_full VALUES (1, 'a', repeat('y', 10000))", "UPDATE by_full SET v = 'b'",
				"UPDATE by_full SET id = 2", "DELETE FROM by_full", "INSERT INTO by_full VALUES (5, NULL, NULL)",
				"DELETE FROM everything WHERE id = 3", "UPDATE everything SET c_text = NULL WHERE id = 2");
	}

	/** What a consumer's transaction handler receives from the slot, in text. */
	private List<Transaction> read(String slot, LogicalDecoder decoder) {
		List<Transaction> transactions = new CopyOnWriteArrayList<>();
		ReplicationConsumer.Builder builder = ReplicationConsumer.builder()
			.jdbcUrl(this.database.jdbcUrl(), this.database.username(), null)
			.slotName(slot)
			.slotLifecycle(SlotLifecycle.EXISTING)
			.publicationName("cross_pub")
			.publicationMode(PublicationMode.EXISTING)
			.decoder(decoder)
			.binary(false)
			.transactionHandler(transactions::add);
		ReplicationConsumer consumer = builder.build();
		try {
			consumer.start();
			await().atMost(Duration.ofSeconds(60))
				.until(() -> transactions.size() >= TRANSACTIONS || consumer.state() == ConsumerState.FAILED);
			assertThat(consumer.state()).as(slot).isEqualTo(ConsumerState.RUNNING);
		}
		finally {
			consumer.stop();
		}
		return List.copyOf(transactions);
	}

	/** The pgoutput leg itself holds what the workload did. */
	private static void sanity(List<Transaction> pgoutput) {
		assertThat(pgoutput).hasSize(TRANSACTIONS);
		assertThat(pgoutput.get(0).changes()).hasSize(3);
		Change toast = pgoutput.get(1).changes().get(0);
		assertThat(toast.after().get("c_big")).isSameAs(UnchangedToast.INSTANCE);
		assertThat(toast.after().get("c_enum")).isEqualTo("happy");
		assertThat(toast.after().get("c_domain")).isEqualTo(7);
		assertThat(toast.after().get("c_int2vector")).isEqualTo(List.of((short) 1, (short) 2, (short) -3));
		assertThat(pgoutput.get(3).changes().get(0).before()).isNull();
		assertThat(pgoutput.get(4).changes().get(0).before().asMap()).containsExactly(Map.entry("id", 1));
		assertThat(pgoutput.get(8).changes().get(0).before().asMap()).containsExactly(Map.entry("code", 10));
		assertThat(pgoutput.get(11).changes().get(0).before().columns()).containsExactly("id", "v", "big");
		assertThat(pgoutput.get(11).changes().get(0).after().get("big")).isSameAs(UnchangedToast.INSTANCE);
		assertThat(pgoutput.get(2).changes().get(0).after().columns()).containsExactly("id", "v");
		assertThat(pgoutput.stream().flatMap((t) -> t.changes().stream()).map(Change::operation).distinct())
			.containsExactlyInAnyOrder(Operation.INSERT, Operation.UPDATE, Operation.DELETE);
	}

	/** A transaction without its positions: origin and changes, byte arrays as hex. */
	private static List<Object> normalised(Transaction transaction) {
		List<Object> changes = new ArrayList<>();
		changes.add(String.valueOf(transaction.origin()));
		for (Change change : transaction.changes()) {
			changes.add(List.of(change.operation(), change.table(), change.index(), row(change.before()),
					row(change.after())));
		}
		return changes;
	}

	private static Object row(@Nullable Row row) {
		if (row == null) {
			return "no row";
		}
		Map<String, Object> values = new LinkedHashMap<>();
		row.asMap().forEach((column, value) -> values.put(column, comparable(value)));
		return values;
	}

	private static Object comparable(@Nullable Object value) {
		if (value == null) {
			return "NULL";
		}
		if (value instanceof byte[] bytes) {
			return "bytes:" + HexFormat.of().formatHex(bytes);
		}
		if (value instanceof List<?> list) {
			return list.stream().map(CrossDecoderIntegrationTests::comparable).toList();
		}
		if (value instanceof Object[] array) {
			return Arrays.stream(array).map(CrossDecoderIntegrationTests::comparable).toList();
		}
		return value;
	}

}
