package io.postlog.decoder;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.UnchangedToast;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.test.PluginLaneTest;
import io.postlog.test.PostgresDatabase;
import io.postlog.types.CatalogTypes;
import io.postlog.types.ValueDecoders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Captures what wal2json and pglogical_output send for each kind of change on the plugin
 * lane's PostgreSQL 15, checks what the decoders make of it, and with
 * {@code -Dpostlog.fixtures.write=true} writes each payload to
 * {@code src/test/resources/decoders/<plugin>/pg15/} for {@link PluginFixturesTests}.
 */
@PluginLaneTest
class PluginFixturesIntegrationTests {

	private static final boolean WRITE = Boolean.getBoolean("postlog.fixtures.write");

	private static final List<TableId> TABLES = List.of(TableId.parse("items"), TableId.parse("full_items"),
			TableId.parse("generated_items"));

	private static final DecoderRequest TEXT = DecoderRequest.text();

	private static final DecoderRequest WITH_MESSAGES = new DecoderRequest(false, true, false);

	private static final Map<String, Map<String, byte[]>> captured = new LinkedHashMap<>();

	private final PostgresDatabase database;

	PluginFixturesIntegrationTests(PostgresDatabase database) {
		this.database = database;
	}

	@BeforeAll
	static void createSchema(PostgresDatabase database) {
		database.execute("CREATE EXTENSION pglogical",
				"SELECT pglogical.create_node(node_name := 'fixtures', dsn := 'dbname=" + database.name() + "')",
				"CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')", "CREATE DOMAIN posint AS int4 CHECK (VALUE > 0)",
				"CREATE TABLE items (id bigint PRIMARY KEY, name text, qty int4, mood mood, note text, "
						+ "price numeric(10, 2), ratio float8, flag bool, data bytea, amount posint)",
				"ALTER TABLE items ALTER COLUMN note SET STORAGE EXTERNAL",
				"CREATE TABLE full_items (id int4 PRIMARY KEY, name text)",
				"CREATE TABLE generated_items (id int4 PRIMARY KEY, doubled int4 GENERATED ALWAYS AS (id * 2) STORED)",
				"SELECT pglogical.create_replication_set('fixtures')",
				"SELECT pglogical.replication_set_add_table('fixtures', 'items')",
				"SELECT pglogical.replication_set_add_table('fixtures', 'full_items')",
				"SELECT pglogical.replication_set_add_table('fixtures', 'generated_items')",
				// pglogical adds no REPLICA IDENTITY FULL table to a set that replicates
				// updates, but streams one made FULL after it was added.
				"ALTER TABLE full_items REPLICA IDENTITY FULL", "SELECT pg_replication_origin_create('upstream')");
	}

	@AfterAll
	static void writeFixtures() throws IOException {
		if (!WRITE) {
			return;
		}
		for (Map.Entry<String, Map<String, byte[]>> plugin : captured.entrySet()) {
			Path directory = Path.of("src/test/resources/decoders", plugin.getKey(), "pg15");
			Files.createDirectories(directory);
			for (Map.Entry<String, byte[]> fixture : plugin.getValue().entrySet()) {
				Files.write(directory.resolve(fixture.getKey()), fixture.getValue());
			}
		}
	}

	@Test
	void captureWal2json() throws Exception {
		slot("fixtures_wal2json", "wal2json");
		workload();
		this.database.execute("SELECT pg_logical_emit_message(true, 'postlog', 'in a transaction')",
				"SELECT pg_logical_emit_message(false, 'postlog', 'on its own')",
				"SELECT pg_logical_emit_message(true, 'postlog', 'flush')");
		Wal2JsonDecoder decoder = Wal2JsonDecoder.forTables(TABLES).allowingNonFiniteNumbersAsNull(true);
		DecoderCatalog catalog = catalog();
		Fixtures fixtures = new Fixtures("wal2json", ".json");
		try (PluginStream stream = PluginStream.open(this.database, "fixtures_wal2json", decoder, WITH_MESSAGES,
				catalog)) {
			Transaction insert = fixtures.transaction(stream, "begin", "insert", "commit");
			assertThat(insert.changes()).singleElement().satisfies((change) -> {
				assertThat(change.after().asMap()).containsEntry("id", 1L)
					.containsEntry("mood", "happy")
					.containsEntry("price", new java.math.BigDecimal("12.50"))
					.containsEntry("ratio", 0.5)
					.containsEntry("flag", true)
					.containsEntry("amount", 7)
					.containsEntry("note", null);
				assertThat((byte[]) change.after().get("data")).containsExactly(0, 0xff);
			});
			fixtures.transaction(stream, null, "insert-toasted", null);
			Change toast = single(fixtures.transaction(stream, null, "update-toast-unchanged", null));
			assertThat(toast.before()).isNull();
			assertThat(toast.after().get("note")).isSameAs(UnchangedToast.INSTANCE);
			Change key = single(fixtures.transaction(stream, null, "update-key", null));
			assertThat(key.before().asMap()).containsExactly(Map.entry("id", 1L));
			Change delete = single(fixtures.transaction(stream, null, "delete-key", null));
			assertThat(delete.before().asMap()).containsExactly(Map.entry("id", 2L));
			fixtures.transaction(stream, null, null, null);
			Change full = single(fixtures.transaction(stream, null, "update-full", null));
			assertThat(full.before().asMap()).containsExactly(Map.entry("id", 1), Map.entry("name", "a"));
			Change fullDelete = single(fixtures.transaction(stream, null, "delete-full", null));
			assertThat(fullDelete.before().asMap()).containsExactly(Map.entry("id", 1), Map.entry("name", "b"));
			Change generated = single(fixtures.transaction(stream, null, "insert-generated", null));
			assertThat(generated.after().columns()).containsExactly("id");
			Change truncate = single(fixtures.transaction(stream, null, "truncate", null));
			assertThat(truncate.operation()).isEqualTo(Operation.TRUNCATE);
			Transaction origin = fixtures.transaction(stream, "begin-origin", null, null);
			assertThat(origin.origin()).isEqualTo("upstream");
			List<PluginStream.Decoded> message = fixtures.untilCommit(stream);
			assertThat(message).extracting((decoded) -> decoded.messages().get(0).getClass().getSimpleName())
				.containsExactly("Begin", "Message", "Commit");
			fixtures.save("message-transactional", message.get(1).payload());
			List<PluginStream.Decoded> alone = fixtures.untilCommit(stream);
			assertThat(((PgOutputMessage.Message) alone.get(0).messages().get(0)).transactional()).isFalse();
			fixtures.save("message-nontransactional", alone.get(0).payload());
		}
	}

	@Test
	void capturePglogical() throws Exception {
		slot("fixtures_pglogical", "pglogical_output");
		workload();
		PgLogicalDecoder decoder = PgLogicalDecoder.forReplicationSets(List.of("fixtures"));
		Fixtures fixtures = new Fixtures("pglogical", ".bin");
		try (PluginStream stream = PluginStream.open(this.database, "fixtures_pglogical", decoder, TEXT, catalog())) {
			byte[] startup = stream.nextPayload();
			assertThat(stream.decode(startup)).isEmpty();
			assertThat(new String(startup, StandardCharsets.UTF_8)).contains("pglogical_version");
			fixtures.save("startup", startup);
			Transaction insert = fixtures.transaction(stream, "begin", "insert", "commit", "relation");
			assertThat(single(insert).after().asMap()).containsEntry("id", 1L)
				.containsEntry("mood", "happy")
				.containsEntry("ratio", 0.5)
				.containsEntry("amount", 7);
			fixtures.transaction(stream, null, "insert-toasted", null);
			Change toast = single(fixtures.transaction(stream, null, "update-toast-unchanged", null));
			assertThat(toast.before()).isNull();
			assertThat(toast.after().get("note")).isSameAs(UnchangedToast.INSTANCE);
			Change key = single(fixtures.transaction(stream, null, "update-key", null));
			assertThat(key.before().asMap()).containsExactly(Map.entry("id", 1L));
			Change delete = single(fixtures.transaction(stream, null, "delete-key", null));
			assertThat(delete.before().asMap()).containsExactly(Map.entry("id", 2L));
			fixtures.transaction(stream, null, null, null, "relation-full");
			Change full = single(fixtures.transaction(stream, null, "update-full", null));
			assertThat(full.before().asMap()).containsExactly(Map.entry("id", 1), Map.entry("name", "a"));
			Change fullDelete = single(fixtures.transaction(stream, null, "delete-full", null));
			assertThat(fullDelete.before().asMap()).containsExactly(Map.entry("id", 1), Map.entry("name", "b"));
			Change generated = single(
					fixtures.transaction(stream, null, "insert-generated", null, "relation-generated"));
			assertThat(generated.after().columns()).containsExactly("id");
			// pglogical_output has no truncate callback: pglogical queues a TRUNCATE of a
			// table in a set that replicates them as a row of its queue table.
			Change queued = single(fixtures.transaction(stream, null, "insert-queue", null));
			assertThat(queued.table()).isEqualTo(new TableId("pglogical", "queue"));
			assertThat(queued.after().get("message_type")).isEqualTo("T");
			Transaction origin = fixtures.transaction(stream, null, null, null);
			assertThat(origin.origin()).isEqualTo("upstream");
			fixtures.save("origin", fixtures.last.get(1).payload());
		}
	}

	/** The same changes for each plugin, one transaction each. */
	private void workload() {
		this.database.execute("INSERT INTO items VALUES (1, 'apple', 3, 'happy', NULL, 12.50, 0.5, true, '\\x00ff', 7)",
				"INSERT INTO items VALUES (3, 'big', 1, 'ok', repeat('x', 10000), NULL, NULL, NULL, NULL, NULL)",
				"UPDATE items SET qty = 2 WHERE id = 3", "UPDATE items SET id = 2 WHERE id = 1",
				"DELETE FROM items WHERE id = 2", "INSERT INTO full_items VALUES (1, 'a')",
				"UPDATE full_items SET name = 'b'", "DELETE FROM full_items", "INSERT INTO generated_items VALUES (1)",
				"TRUNCATE generated_items");
		this.database.execute("SELECT pg_replication_origin_session_setup('upstream')", "BEGIN",
				"SELECT pg_replication_origin_xact_setup('1/ABCDEF', now())",
				"INSERT INTO full_items VALUES (2, 'from upstream')", "COMMIT",
				"SELECT pg_replication_origin_session_reset()");
	}

	private DecoderCatalog catalog() {
		return DecoderCatalog.opening(this.database::connect);
	}

	/** Empties the tables, then creates the slot, which sees only what follows. */
	private void slot(String name, String plugin) {
		this.database.execute("TRUNCATE items, full_items, generated_items",
				"SELECT pg_create_logical_replication_slot('" + name + "', '" + plugin + "')");
	}

	private static Change single(Transaction transaction) {
		assertThat(transaction.changes()).hasSize(1);
		return transaction.changes().get(0);
	}

	/** Reads transactions of one plugin, saving chosen payloads. */
	private final class Fixtures {

		final String plugin;

		final String extension;

		final TransactionAssembler assembler;

		List<PluginStream.Decoded> last = List.of();

		Fixtures(String plugin, String extension) {
			this.plugin = plugin;
			this.extension = extension;
			this.assembler = new TransactionAssembler(plugin, ValueDecoders.standard()
				.withLookup(new CatalogTypes(PluginFixturesIntegrationTests.this.database)));
			captured.put(plugin, new LinkedHashMap<>());
		}

		/**
		 * Reads the next transaction with changes (skipping empty ones) and saves its
		 * begin, first change, commit and, if named, its first relation.
		 */
		Transaction transaction(PluginStream stream, String begin, String change, String commit) throws SQLException {
			return transaction(stream, begin, change, commit, null);
		}

		Transaction transaction(PluginStream stream, String begin, String change, String commit, String relation)
				throws SQLException {
			while (true) {
				List<PluginStream.Decoded> decoded = untilCommit(stream);
				int before = this.assembler.transactions().size();
				decoded.forEach((payload) -> this.assembler.accept(payload.messages()));
				if (this.assembler.transactions().size() == before) {
					continue;
				}
				this.last = decoded;
				save(begin, decoded.get(0).payload());
				save(commit, decoded.get(decoded.size() - 1).payload());
				save(change, first(decoded, "Insert", "Update", "Delete", "Truncate"));
				save(relation, first(decoded, "Relation"));
				return this.assembler.transactions().get(before);
			}
		}

		List<PluginStream.Decoded> untilCommit(PluginStream stream) throws SQLException {
			List<PluginStream.Decoded> decoded = new ArrayList<>();
			while (true) {
				byte[] payload = stream.nextPayload();
				List<PgOutputMessage> messages = stream.decode(payload);
				decoded.add(new PluginStream.Decoded(payload, messages));
				if (messages.stream().anyMatch((message) -> message instanceof PgOutputMessage.Commit)
						|| messages.stream()
							.anyMatch((message) -> message instanceof PgOutputMessage.Message logical
									&& !logical.transactional())) {
					return decoded;
				}
			}
		}

		private byte[] first(List<PluginStream.Decoded> decoded, String... kinds) {
			for (PluginStream.Decoded payload : decoded) {
				for (PgOutputMessage message : payload.messages()) {
					if (List.of(kinds).contains(message.getClass().getSimpleName())) {
						return payload.payload();
					}
				}
			}
			return null;
		}

		void save(String name, byte[] payload) {
			if (name != null) {
				assertThat(payload).as(name).isNotNull();
				captured.get(this.plugin).put(name + this.extension, payload);
				assertThat(ByteBuffer.wrap(payload).remaining()).isPositive();
			}
		}

	}

}
