package io.postlog.pgoutput;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import io.postlog.pgoutput.PgOutputMessage.Begin;
import io.postlog.pgoutput.PgOutputMessage.BeginPrepare;
import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.pgoutput.PgOutputMessage.Commit;
import io.postlog.pgoutput.PgOutputMessage.CommitPrepared;
import io.postlog.pgoutput.PgOutputMessage.Delete;
import io.postlog.pgoutput.PgOutputMessage.Insert;
import io.postlog.pgoutput.PgOutputMessage.Message;
import io.postlog.pgoutput.PgOutputMessage.Origin;
import io.postlog.pgoutput.PgOutputMessage.Prepare;
import io.postlog.pgoutput.PgOutputMessage.Relation;
import io.postlog.pgoutput.PgOutputMessage.RollbackPrepared;
import io.postlog.pgoutput.PgOutputMessage.StreamAbort;
import io.postlog.pgoutput.PgOutputMessage.StreamCommit;
import io.postlog.pgoutput.PgOutputMessage.StreamPrepare;
import io.postlog.pgoutput.PgOutputMessage.StreamStart;
import io.postlog.pgoutput.PgOutputMessage.Truncate;
import io.postlog.pgoutput.PgOutputMessage.Type;
import io.postlog.pgoutput.PgOutputMessage.Update;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Captures pgoutput messages of every kind from a real server, decodes and checks them,
 * and with {@code -Dpostlog.fixtures.write=true} writes their bytes to
 * {@code src/test/resources/pgoutput/pg<major>/} for {@link PgOutputDecoderTests}.
 */
@Tag("matrix")
@PostgresTest(settings = "max_prepared_transactions=10")
class PgOutputFixturesIntegrationTests {

	private static final boolean WRITE = Boolean.getBoolean("postlog.fixtures.write");

	private static final String VALUE_COLUMNS = "c_bool bool, c_int2 int2, c_int4 int4, c_int8 int8, c_oid oid, "
			+ "c_float4 float4, c_float8 float8, c_numeric numeric, c_text text, c_varchar varchar(20), "
			+ "c_bpchar char(5), c_name name, c_char \"char\", c_xml xml, c_json json, c_jsonb jsonb, c_bytea bytea, "
			+ "c_uuid uuid, c_date date, c_time time, c_timetz timetz, c_timestamp timestamp, "
			+ "c_timestamptz timestamptz, c_interval interval, c_inet inet, c_cidr cidr, c_macaddr macaddr, "
			+ "c_money money, c_bit bit(4), c_varbit varbit, c_int4_array int4[], c_text_array text[], "
			+ "c_int4_matrix int4[], c_enum mood, c_domain posint, c_point point";

	private static final List<String> VALUE_COLUMN_NAMES = Arrays.stream(VALUE_COLUMNS.split(", "))
		.map((column) -> column.substring(0, column.indexOf(' ')))
		.toList();

	private static final String VALUES_TYPICAL = "(true, 12, 123456, 9007199254740993, 4000000000, 1.5, "
			+ "3.141592653589793, 12345.6789, 'héllo wörld', 'varchar', 'ab', 'a_name', 'c', '<a>x</a>', "
			+ "'{\"a\": [1, 2]}', '{\"b\": {\"c\": null}}', '\\x00ff10', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', "
			+ "'2024-02-29', '13:45:56.123456', '13:45:56.123456+02', '2024-02-29 13:45:56.123456', "
			+ "'2024-02-29 13:45:56.123456+00', '1 year 2 mons 3 days 04:05:06.789', '192.168.1.10', '10.0.0.0/8', "
			+ "'08:00:2b:01:02:03', 12.34, B'1010', B'101', '{1,2,NULL,4}', '{\"a\",\"b c\",NULL,\"d\\\"e\"}', "
			+ "'{{1,2},{3,4}}', 'happy', 7, '(1.5,2)')";

	private static final String VALUES_SPECIAL = "(false, -32768, -2147483648, -9223372036854775808, 0, 'NaN', "
			+ "'-Infinity', 'NaN', '', '', ' ', '', ' ', '<b/>', '[]', '{}', '', '00000000-0000-0000-0000-000000000000', "
			+ "'0001-01-01 BC', '00:00', '23:59:59.999999-12', '1999-12-31 23:59:59.999999', "
			+ "'1970-01-01 00:00:00+00', '-1 mons -2 days -00:00:00.000001', '::1', '2001:db8::/32', "
			+ "'ff:ff:ff:ff:ff:ff', -92233720368547758.08, B'0000', B'', '{}', '{}', '{}', 'sad', 1, '(0,0)')";

	private static final String VALUES_INFINITY = "(NULL, NULL, NULL, NULL, NULL, 'Infinity', 'Infinity', "
			+ "'Infinity', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'infinity', NULL, NULL, "
			+ "'-infinity', 'infinity', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)";

	private final PostgresDatabase database;

	private final int major;

	PgOutputFixturesIntegrationTests(PostgresDatabase database) {
		this.database = database;
		this.major = database.serverVersion() / 10000;
	}

	@BeforeAll
	static void createSchema(PostgresDatabase database) {
		database.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
				"CREATE DOMAIN posint AS int4 CHECK (VALUE > 0)",
				"CREATE TABLE items (id bigint PRIMARY KEY, name text, qty int4, mood mood, note text)",
				"ALTER TABLE items ALTER COLUMN note SET STORAGE EXTERNAL",
				"CREATE TABLE full_items (id int4, name text)", "ALTER TABLE full_items REPLICA IDENTITY FULL",
				"CREATE TABLE parent (id int4 PRIMARY KEY)",
				"CREATE TABLE child (id int4 PRIMARY KEY, parent_id int4 REFERENCES parent (id))",
				"CREATE TABLE all_types (" + VALUE_COLUMNS + ")",
				"CREATE TABLE bench (id bigint PRIMARY KEY, quantity int4, name text, created_at timestamptz, "
						+ "amount numeric, attributes jsonb)",
				"CREATE TABLE stream_items (id int4 PRIMARY KEY, mood mood, payload text)",
				"CREATE TABLE stream_other (id int4)", "CREATE PUBLICATION pub FOR ALL TABLES");
	}

	@Test
	void captureTransactionInsertUpdateDeleteInText() throws Exception {
		try (Capture capture = new Capture("text_changes", false)) {
			Step insert = capture.run(1, "INSERT INTO items VALUES (1, 'apple', 3, 'happy', NULL)");
			assertThat(insert.tags()).isEqualTo("BYRIC");
			Begin begin = insert.get(0);
			Commit commit = insert.get(4);
			assertThat(begin.finalLsn()).isEqualTo(commit.commitLsn());
			assertThat(begin.commitTime()).isEqualTo(commit.commitTime());
			assertThat(commit.endLsn()).isGreaterThan(commit.commitLsn());
			Type type = insert.get(1);
			assertThat(type.name()).isEqualTo("mood");
			assertThat(type.namespace()).isEqualTo("public");
			Relation items = insert.get(2);
			assertThat(items.relationName()).isEqualTo("items");
			assertThat(items.namespace()).isEqualTo("public");
			assertThat(items.replicaIdentity()).isEqualTo('d');
			assertThat(columnNames(items)).containsExactly("id", "name", "qty", "mood", "note");
			assertThat(items.columns().get(0).isKey()).isTrue();
			assertThat(items.columns().get(3).typeOid()).isEqualTo(type.typeOid());
			Insert inserted = insert.get(3);
			assertThat(inserted.relationId()).isEqualTo(items.relationId());
			assertThat(kinds(inserted.newTuple())).isEqualTo("ttttn");
			assertThat(text(inserted.newTuple(), 1)).isEqualTo("apple");
			insert.save(0, "begin").save(1, "type").save(2, "relation").save(3, "insert-text").save(4, "commit");

			Step update = capture.run(1, "UPDATE items SET qty = 4 WHERE id = 1");
			assertThat(update.tags()).isEqualTo("BYRUC");
			Update plain = update.get(3);
			assertThat(plain.keyTuple()).isNull();
			assertThat(plain.oldTuple()).isNull();
			assertThat(kinds(plain.newTuple())).isEqualTo("ttttn");
			update.save(3, "update-new");

			Step updateKey = capture.run(1, "UPDATE items SET id = 2 WHERE id = 1");
			Update keyed = updateKey.get(3);
			assertThat(kinds(keyed.keyTuple())).isEqualTo("tnnnn");
			assertThat(text(keyed.keyTuple(), 0)).isEqualTo("1");
			assertThat(text(keyed.newTuple(), 0)).isEqualTo("2");
			updateKey.save(3, "update-key");

			capture.run(1, "INSERT INTO items VALUES (3, 'big', 1, 'ok', repeat('x', 10000))");
			Step toast = capture.run(1, "UPDATE items SET qty = 2 WHERE id = 3");
			Update toasted = toast.get(3);
			assertThat(kinds(toasted.newTuple())).isEqualTo("ttttu");
			toast.save(3, "update-toast");

			Step delete = capture.run(1, "DELETE FROM items WHERE id = 2");
			assertThat(delete.tags()).isEqualTo("BYRDC");
			Delete deleted = delete.get(3);
			assertThat(deleted.oldTuple()).isNull();
			assertThat(kinds(deleted.keyTuple())).isEqualTo("tnnnn");
			delete.save(3, "delete-key");

			capture.run(1, "INSERT INTO full_items VALUES (1, 'a')");
			Step updateOld = capture.run(1, "UPDATE full_items SET name = 'b'");
			assertThat(updateOld.tags()).isEqualTo("BRUC");
			Relation full = updateOld.get(1);
			assertThat(full.replicaIdentity()).isEqualTo('f');
			assertThat(full.columns()).allMatch(Column::isKey);
			Update withOld = updateOld.get(2);
			assertThat(withOld.keyTuple()).isNull();
			assertThat(text(withOld.oldTuple(), 1)).isEqualTo("a");
			assertThat(text(withOld.newTuple(), 1)).isEqualTo("b");
			updateOld.save(1, "relation-full").save(2, "update-old");

			Step deleteOld = capture.run(1, "DELETE FROM full_items");
			Delete withOldRow = deleteOld.get(2);
			assertThat(withOldRow.keyTuple()).isNull();
			assertThat(kinds(withOldRow.oldTuple())).isEqualTo("tt");
			deleteOld.save(2, "delete-old");
		}
	}

	@Test
	void captureTruncateWithAndWithoutOptions() throws Exception {
		Assumptions.assumeTrue(this.major >= 11, "pgoutput sends Truncate since PostgreSQL 11");
		try (Capture capture = new Capture("truncates", false)) {
			Step plain = capture.run(1, "TRUNCATE stream_other");
			assertThat(plain.tags()).isEqualTo("BRTC");
			Truncate truncate = plain.get(2);
			assertThat(truncate.options()).isZero();
			assertThat(truncate.relationIds()).containsExactly(plain.<Relation>get(1).relationId());
			plain.save(2, "truncate");

			capture.run(1, "INSERT INTO parent VALUES (1)", "INSERT INTO child VALUES (1, 1)");
			Step cascade = capture.run(1, "TRUNCATE parent RESTART IDENTITY CASCADE");
			assertThat(cascade.tags()).isEqualTo("BRRTC");
			Truncate both = cascade.get(3);
			assertThat(both.options()).isEqualTo(3);
			assertThat(both.relationIds()).containsExactlyInAnyOrder(cascade.<Relation>get(1).relationId(),
					cascade.<Relation>get(2).relationId());
			cascade.save(3, "truncate-cascade-restart");
		}
	}

	@Test
	void captureOrigin() throws Exception {
		try (Capture capture = new Capture("origins", false)) {
			Step step = capture.run(1, "SELECT pg_replication_origin_create('upstream')",
					"SELECT pg_replication_origin_session_setup('upstream')", "BEGIN",
					"SELECT pg_replication_origin_xact_setup('1/ABCDEF', now())", "INSERT INTO stream_other VALUES (1)",
					"COMMIT", "SELECT pg_replication_origin_session_reset()");
			// Before PostgreSQL 15 the origin's creation is sent as an empty transaction.
			assertThat(step.tags()).matches("(BC)?BORIC");
			int index = step.tags().indexOf('O');
			Origin origin = step.get(index);
			assertThat(origin.name()).isEqualTo("upstream");
			assertThat(origin.commitLsn()).hasToString("1/ABCDEF");
			step.save(index, "origin");
		}
	}

	@Test
	void captureLogicalMessages() throws Exception {
		Assumptions.assumeTrue(this.major >= 14, "pgoutput sends logical messages since PostgreSQL 14");
		try (Capture capture = new Capture("messages", false)) {
			Step transactional = capture.run(1, List.of("messages", "true"),
					"SELECT pg_logical_emit_message(true, 'postlog', 'in a transaction')");
			assertThat(transactional.tags()).isEqualTo("BMC");
			Message message = transactional.get(1);
			assertThat(message.transactional()).isTrue();
			assertThat(message.prefix()).isEqualTo("postlog");
			assertThat(new String(message.content(), StandardCharsets.UTF_8)).isEqualTo("in a transaction");
			transactional.save(1, "message-transactional");

			// A transaction with an xid follows, so that the WAL holding the message is
			// flushed: before PostgreSQL 17 a non-transactional message alone is not.
			Step plain = capture.run(1, List.of("messages", "true"),
					"SELECT pg_logical_emit_message(false, 'postlog', 'on its own')",
					"SELECT pg_logical_emit_message(true, 'postlog', 'flush')");
			assertThat(plain.tags()).isEqualTo("MBMC");
			assertThat(plain.<Message>get(0).transactional()).isFalse();
			plain.save(0, "message-nontransactional");
		}
	}

	@Test
	void captureBinaryChanges() throws Exception {
		Assumptions.assumeTrue(this.major >= 14, "pgoutput sends binary values since PostgreSQL 14");
		try (Capture capture = new Capture("binary_changes", false)) {
			List<String> binary = List.of("binary", "true");
			Step insert = capture.run(1, binary, "INSERT INTO items VALUES (10, 'pear', 5, 'sad', NULL)");
			assertThat(insert.tags()).isEqualTo("BYRIC");
			Insert inserted = insert.get(3);
			assertThat(kinds(inserted.newTuple())).isEqualTo("bbbbn");
			assertThat(binary(inserted.newTuple(), 0)).containsExactly(0, 0, 0, 0, 0, 0, 0, 10);
			insert.save(3, "insert-binary");

			Step updateKey = capture.run(1, binary, "UPDATE items SET id = 11 WHERE id = 10");
			Update keyed = updateKey.get(3);
			assertThat(kinds(keyed.keyTuple())).isEqualTo("bnnnn");
			assertThat(kinds(keyed.newTuple())).isEqualTo("bbbbn");
			updateKey.save(3, "update-key-binary");

			capture.run(1, binary, "INSERT INTO full_items VALUES (2, 'c')");
			Step updateOld = capture.run(1, binary, "UPDATE full_items SET name = 'd'");
			Update withOld = updateOld.get(2);
			assertThat(kinds(withOld.oldTuple())).isEqualTo("bb");
			updateOld.save(2, "update-old-binary");

			Step deleteOld = capture.run(1, binary, "DELETE FROM full_items");
			assertThat(kinds(deleteOld.<Delete>get(2).oldTuple())).isEqualTo("bb");
			deleteOld.save(2, "delete-old-binary");
		}
	}

	@Test
	void captureEveryValueTypeInTextAndBinary() throws Exception {
		try (Capture capture = new Capture("value_types", false)) {
			Step typical = capture.run(1, "INSERT INTO all_types VALUES " + VALUES_TYPICAL);
			assertThat(typical.tags()).isEqualTo("BYYRIC");
			Relation relation = typical.get(3);
			assertThat(columnNames(relation)).isEqualTo(VALUE_COLUMN_NAMES);
			int enumIndex = typical.<Type>get(1).name().equals("mood") ? 1 : 2;
			Type enumType = typical.get(enumIndex);
			Type domainType = typical.get(3 - enumIndex);
			assertThat(enumType.namespace()).isEqualTo("public");
			assertThat(enumType.typeOid())
				.isEqualTo(relation.columns().get(VALUE_COLUMN_NAMES.indexOf("c_enum")).typeOid());
			// A domain is announced under its own OID with its base type's name.
			assertThat(domainType.typeOid())
				.isEqualTo(relation.columns().get(VALUE_COLUMN_NAMES.indexOf("c_domain")).typeOid());
			assertThat(domainType.name()).isEqualTo("int4");
			assertThat(domainType.namespace()).isEmpty();
			assertThat(kinds(typical.<Insert>get(4).newTuple())).isEqualTo("t".repeat(VALUE_COLUMN_NAMES.size()));
			assertThat(text(typical.<Insert>get(4).newTuple(), 8)).isEqualTo("héllo wörld");
			typical.save(enumIndex, "values-type-enum")
				.save(3 - enumIndex, "values-type-domain")
				.save(3, "values-relation")
				.save(4, "values-insert-text-typical");
			captureValues(capture, List.of(), "text", 't');
			if (this.major >= 14) {
				Step binary = capture.run(1, List.of("binary", "true"),
						"INSERT INTO all_types VALUES " + VALUES_TYPICAL);
				assertThat(kinds(binary.<Insert>get(4).newTuple())).isEqualTo("b".repeat(VALUE_COLUMN_NAMES.size()));
				binary.save(4, "values-insert-binary-typical");
				captureValues(capture, List.of("binary", "true"), "binary", 'b');
			}
		}
	}

	private void captureValues(Capture capture, List<String> options, String mode, char kind) throws SQLException {
		Step special = capture.run(1, options, "INSERT INTO all_types VALUES " + VALUES_SPECIAL);
		assertThat(kinds(special.<Insert>get(4).newTuple()))
			.isEqualTo(String.valueOf(kind).repeat(VALUE_COLUMN_NAMES.size()));
		special.save(4, "values-insert-" + mode + "-special");
		Step nulls = capture.run(1, options, "INSERT INTO all_types DEFAULT VALUES");
		assertThat(kinds(nulls.<Insert>get(4).newTuple())).isEqualTo("n".repeat(VALUE_COLUMN_NAMES.size()));
		nulls.save(4, "values-insert-" + mode + "-nulls");
		if (this.major >= 14) {
			Step infinity = capture.run(1, options, "INSERT INTO all_types VALUES " + VALUES_INFINITY);
			assertThat(kinds(infinity.<Insert>get(4).newTuple())).contains(String.valueOf(kind)).contains("n");
			infinity.save(4, "values-insert-" + mode + "-infinity");
		}
	}

	@Test
	void captureBenchmarkTableChanges() throws Exception {
		try (Capture capture = new Capture("bench_changes", false)) {
			benchmarkChanges(capture, List.of(), "text", "tttttt");
			if (this.major >= 14) {
				benchmarkChanges(capture, List.of("binary", "true"), "binary", "bbbbbb");
			}
		}
	}

	private void benchmarkChanges(Capture capture, List<String> options, String mode, String kinds)
			throws SQLException {
		Step insert = capture.run(1, options, "INSERT INTO bench VALUES (42, 7, 'a widget of some length', "
				+ "'2024-05-01 12:34:56.789+00', 1234.56, '{\"color\": \"red\", \"sizes\": [1, 2, 3]}')");
		assertThat(insert.tags()).isEqualTo("BRIC");
		assertThat(columnNames(insert.get(1))).containsExactly("id", "quantity", "name", "created_at", "amount",
				"attributes");
		assertThat(kinds(insert.<Insert>get(2).newTuple())).isEqualTo(kinds);
		Step update = capture.run(1, options, "UPDATE bench SET quantity = 8, amount = 99.5 WHERE id = 42");
		assertThat(kinds(update.<Update>get(2).newTuple())).isEqualTo(kinds);
		Step delete = capture.run(1, options, "DELETE FROM bench WHERE id = 42");
		assertThat(kinds(delete.<Delete>get(2).keyTuple())).isEqualTo(kinds.charAt(0) + "nnnnn");
		insert.save(1, "bench-relation").save(2, "bench-insert-" + mode);
		update.save(2, "bench-update-" + mode);
		delete.save(2, "bench-delete-" + mode);
	}

	@Test
	void captureStreamedTransaction() throws Exception {
		Assumptions.assumeTrue(this.major >= 14, "pgoutput streams since PostgreSQL 14");
		try (Capture capture = new Capture("streamed", false)) {
			Step step = capture.run(2, List.of("streaming", "on", "messages", "true"), "BEGIN",
					"SELECT pg_logical_emit_message(true, 'postlog', 'streamed')",
					"INSERT INTO stream_items SELECT g, 'ok', repeat('x', 100) FROM generate_series(1, 3000) g",
					"UPDATE stream_items SET payload = 'y' WHERE id = 1", "DELETE FROM stream_items WHERE id = 2",
					"TRUNCATE stream_other", "COMMIT");
			String tags = step.tags();
			assertThat(tags).startsWith("S").endsWith("Ec").contains("ES");
			StreamStart first = step.get(0);
			assertThat(first.firstSegment()).isTrue();
			long xid = first.xid();
			for (Captured captured : step.captured()) {
				assertThat(captured.xid()).isIn(null, xid);
				assertThat(captured.xid() != null)
					.isEqualTo(captured.inStream() && "RYIUDTM".indexOf(captured.tag()) >= 0);
			}
			int next = tags.indexOf('S', 1);
			assertThat(step.<StreamStart>get(next).firstSegment()).isFalse();
			assertThat(step.<StreamCommit>get(tags.length() - 1).xid()).isEqualTo(xid);
			Relation relation = step.get(tags.indexOf('R'));
			assertThat(relation.relationName()).isEqualTo("stream_items");
			step.save(0, "stream-start-first")
				.save(next, "stream-start")
				.save(tags.indexOf('E'), "stream-stop")
				.save(tags.indexOf('Y'), "in-stream-type")
				.save(tags.indexOf('R'), "in-stream-relation")
				.save(tags.indexOf('M'), "in-stream-message")
				.save(tags.indexOf('I'), "in-stream-insert")
				.save(tags.indexOf('U'), "in-stream-update")
				.save(tags.indexOf('D'), "in-stream-delete")
				.save(tags.indexOf('T'), "in-stream-truncate")
				.save(tags.length() - 1, "stream-commit");
		}
	}

	@Test
	void captureStreamAbortOfRolledBackSubtransaction() throws Exception {
		Assumptions.assumeTrue(this.major >= 14, "pgoutput streams since PostgreSQL 14");
		try (Capture capture = new Capture("stream_abort", false)) {
			StreamAbort abort = streamAbort(capture, 2, "on", "stream-abort");
			assertThat(abort.abortLsn()).isNull();
			assertThat(abort.abortTime()).isNull();
		}
	}

	@Test
	void captureParallelStreamAbort() throws Exception {
		Assumptions.assumeTrue(this.major >= 16, "parallel streaming needs protocol v4, PostgreSQL 16");
		try (Capture capture = new Capture("stream_abort_parallel", false)) {
			StreamAbort abort = streamAbort(capture, 4, "parallel", "stream-abort-parallel");
			assertThat(abort.abortLsn()).isNotNull();
			assertThat(abort.abortTime()).isNotNull();
		}
	}

	private StreamAbort streamAbort(Capture capture, int protocol, String streaming, String name) throws SQLException {
		Step step = capture.run(protocol, List.of("streaming", streaming), "BEGIN",
				"INSERT INTO stream_other SELECT g FROM generate_series(1, 2000) g", "SAVEPOINT s",
				"INSERT INTO stream_other SELECT g FROM generate_series(1, 2000) g", "ROLLBACK TO SAVEPOINT s",
				"INSERT INTO stream_other VALUES (0)", "COMMIT");
		int index = step.tags().indexOf('A');
		assertThat(index).isPositive();
		StreamAbort abort = step.get(index);
		StreamStart start = step.get(0);
		assertThat(abort.xid()).isEqualTo(start.xid());
		assertThat(abort.subXid()).isNotEqualTo(start.xid());
		assertThat(step.tags()).endsWith("c");
		step.save(index, name);
		return abort;
	}

	@Test
	void captureTwoPhaseCommitAndRollback() throws Exception {
		Assumptions.assumeTrue(this.major >= 15, "pgoutput decodes two-phase transactions since PostgreSQL 15");
		try (Capture capture = new Capture("two_phase", true)) {
			List<String> twoPhase = List.of("two_phase", "on");
			Step prepare = capture.run(3, twoPhase, "BEGIN", "INSERT INTO stream_other VALUES (7)",
					"PREPARE TRANSACTION 'postlog-commit'");
			assertThat(prepare.tags()).isEqualTo("bRIP");
			BeginPrepare begin = prepare.get(0);
			Prepare prepared = prepare.get(3);
			assertThat(begin.gid()).isEqualTo("postlog-commit");
			assertThat(prepared.gid()).isEqualTo("postlog-commit");
			assertThat(prepared.xid()).isEqualTo(begin.xid());
			assertThat(prepared.prepareLsn()).isEqualTo(begin.prepareLsn());
			assertThat(prepared.endLsn()).isEqualTo(begin.endLsn());
			Step commit = capture.run(3, twoPhase, "COMMIT PREPARED 'postlog-commit'");
			assertThat(commit.tags()).isEqualTo("K");
			CommitPrepared committed = commit.get(0);
			assertThat(committed.xid()).isEqualTo(begin.xid());
			assertThat(committed.gid()).isEqualTo("postlog-commit");
			prepare.save(0, "begin-prepare").save(3, "prepare");
			commit.save(0, "commit-prepared");

			capture.run(3, twoPhase, "BEGIN", "INSERT INTO stream_other VALUES (8)",
					"PREPARE TRANSACTION 'postlog-rollback'");
			Step rollback = capture.run(3, twoPhase, "ROLLBACK PREPARED 'postlog-rollback'");
			assertThat(rollback.tags()).isEqualTo("r");
			RollbackPrepared rolledBack = rollback.get(0);
			assertThat(rolledBack.gid()).isEqualTo("postlog-rollback");
			assertThat(rolledBack.rollbackEndLsn()).isGreaterThan(rolledBack.prepareEndLsn());
			rollback.save(0, "rollback-prepared");
		}
	}

	@Test
	void captureStreamPrepare() throws Exception {
		Assumptions.assumeTrue(this.major >= 15, "pgoutput decodes two-phase transactions since PostgreSQL 15");
		try (Capture capture = new Capture("stream_prepare", true)) {
			List<String> options = List.of("two_phase", "on", "streaming", "on");
			Step step = capture.run(3, options, "BEGIN",
					"INSERT INTO stream_other SELECT g FROM generate_series(1, 3000) g",
					"PREPARE TRANSACTION 'postlog-streamed'");
			assertThat(step.tags()).startsWith("S").endsWith("Ep");
			StreamPrepare prepare = step.get(step.tags().length() - 1);
			assertThat(prepare.gid()).isEqualTo("postlog-streamed");
			assertThat(prepare.xid()).isEqualTo(step.<StreamStart>get(0).xid());
			step.save(step.tags().length() - 1, "stream-prepare");
			Step commit = capture.run(3, options, "COMMIT PREPARED 'postlog-streamed'");
			assertThat(commit.tags()).isEqualTo("K");
		}
	}

	private static List<String> columnNames(Relation relation) {
		return relation.columns().stream().map(Column::name).toList();
	}

	static String kinds(TupleData tuple) {
		return tuple.values().stream().map((value) -> {
			if (value == TupleValue.NULL) {
				return "n";
			}
			if (value == TupleValue.UNCHANGED_TOAST) {
				return "u";
			}
			return (value instanceof TupleValue.Text) ? "t" : "b";
		}).collect(Collectors.joining());
	}

	private static String text(TupleData tuple, int index) {
		return new String(((TupleValue.Text) tuple.get(index)).bytes(), StandardCharsets.UTF_8);
	}

	private static byte[] binary(TupleData tuple, int index) {
		return ((TupleValue.Binary) tuple.get(index)).bytes();
	}

	/** One captured message and how it was decoded. */
	private record Captured(byte[] bytes, boolean inStream, PgOutputMessage message) {

		char tag() {
			return (char) this.bytes[0];
		}

		Long xid() {
			if (this.message instanceof Insert insert) {
				return insert.xid();
			}
			if (this.message instanceof Update update) {
				return update.xid();
			}
			if (this.message instanceof Delete delete) {
				return delete.xid();
			}
			if (this.message instanceof Truncate truncate) {
				return truncate.xid();
			}
			if (this.message instanceof Relation relation) {
				return relation.xid();
			}
			if (this.message instanceof Type type) {
				return type.xid();
			}
			if (this.message instanceof Message message) {
				return message.xid();
			}
			return null;
		}

	}

	/** The messages one step of SQL produced. */
	private final class Step {

		private final List<Captured> captured;

		Step(List<Captured> captured) {
			this.captured = captured;
		}

		List<Captured> captured() {
			return this.captured;
		}

		String tags() {
			StringBuilder tags = new StringBuilder();
			this.captured.forEach((message) -> tags.append(message.tag()));
			return tags.toString();
		}

		@SuppressWarnings("unchecked")
		<T extends PgOutputMessage> T get(int index) {
			return (T) this.captured.get(index).message();
		}

		Step save(int index, String name) {
			assertThat(index).as("message index for %s", name).isBetween(0, this.captured.size() - 1);
			if (WRITE) {
				Path file = Path.of("src/test/resources/pgoutput", "pg" + PgOutputFixturesIntegrationTests.this.major,
						name + ".bin");
				try {
					Files.createDirectories(file.getParent());
					Files.write(file, this.captured.get(index).bytes());
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
			}
			return this;
		}

	}

	/**
	 * A logical slot of its own: each step runs SQL, reads the slot's new messages with
	 * {@code pg_logical_slot_peek_binary_changes} and then consumes them.
	 */
	private final class Capture implements AutoCloseable {

		private final String slot;

		private final Connection connection;

		Capture(String slot, boolean twoPhase) throws SQLException {
			this.slot = slot;
			this.connection = PgOutputFixturesIntegrationTests.this.database.connect();
			try (Statement statement = this.connection.createStatement()) {
				statement.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput'"
						+ (twoPhase ? ", false, true)" : ")"));
			}
		}

		Step run(int protocol, String... sql) throws SQLException {
			return run(protocol, List.of(), sql);
		}

		Step run(int protocol, List<String> options, String... sql) throws SQLException {
			try (Connection session = PgOutputFixturesIntegrationTests.this.database.connect();
					Statement statement = session.createStatement()) {
				for (String each : sql) {
					statement.execute(each);
				}
			}
			List<String> all = new ArrayList<>(
					List.of("proto_version", String.valueOf(protocol), "publication_names", "pub"));
			all.addAll(options);
			List<byte[]> messages = read("peek", all);
			assertThat(read("get", all)).hasSameSizeAs(messages);
			List<Captured> captured = new ArrayList<>();
			boolean inStream = false;
			for (byte[] bytes : messages) {
				PgOutputMessage message = PgOutputDecoder.decode(ByteBuffer.wrap(bytes), inStream);
				captured.add(new Captured(bytes, inStream, message));
				if (message instanceof StreamStart) {
					inStream = true;
				}
				else if (message instanceof PgOutputMessage.StreamStop) {
					inStream = false;
				}
			}
			return new Step(captured);
		}

		private List<byte[]> read(String function, List<String> options) throws SQLException {
			String sql = "SELECT data FROM pg_logical_slot_" + function
					+ "_binary_changes(?, NULL, NULL, VARIADIC ?::text[])";
			// A session of its own per read: PostgreSQL 10's pgoutput registers cache
			// callbacks at every start-up, and one session runs out of them after a few.
			try (Connection session = PgOutputFixturesIntegrationTests.this.database.connect();
					PreparedStatement statement = session.prepareStatement(sql)) {
				if (PgOutputFixturesIntegrationTests.this.major >= 13) {
					try (Statement setting = session.createStatement()) {
						// Small, so that a few thousand rows make the server stream.
						setting.execute("SET logical_decoding_work_mem = '64kB'");
					}
				}
				Array array = session.createArrayOf("text", options.toArray());
				statement.setString(1, this.slot);
				statement.setArray(2, array);
				List<byte[]> messages = new ArrayList<>();
				try (ResultSet resultSet = statement.executeQuery()) {
					while (resultSet.next()) {
						messages.add(resultSet.getBytes(1));
					}
				}
				return messages;
			}
		}

		@Override
		public void close() throws SQLException {
			try (Statement statement = this.connection.createStatement()) {
				statement.execute("SELECT pg_drop_replication_slot('" + this.slot + "')");
			}
			finally {
				this.connection.close();
			}
		}

	}

}
