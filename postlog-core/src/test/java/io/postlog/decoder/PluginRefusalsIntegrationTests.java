package io.postlog.decoder;

import java.sql.Connection;
import java.util.List;

import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.test.PluginLaneTest;
import io.postlog.test.PostgresDatabase;
import io.postlog.types.ValueDecoders;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The refusals at start on the plugin lane's real catalog and plugins, and the plugin
 * behaviour each one guards against.
 */
@PluginLaneTest
class PluginRefusalsIntegrationTests {

	private final PostgresDatabase database;

	private final DecoderCatalog catalog;

	PluginRefusalsIntegrationTests(PostgresDatabase database) {
		this.database = database;
		this.catalog = DecoderCatalog.opening(database::connect);
	}

	@BeforeAll
	static void createSchema(PostgresDatabase database) {
		database.execute("CREATE EXTENSION pglogical",
				"SELECT pglogical.create_node(node_name := 'refusals', dsn := 'dbname=" + database.name() + "')",
				"CREATE TABLE keyless (v text)", "CREATE TABLE keyed (id int PRIMARY KEY, ratio float8)",
				"CREATE TABLE full_keyed (id int PRIMARY KEY, v text)", "ALTER TABLE full_keyed REPLICA IDENTITY FULL");
	}

	@Test
	void wal2jsonRefusesAKeylessTableWhoseUpdatesItWouldDropSilently() throws Exception {
		Wal2JsonDecoder refusing = Wal2JsonDecoder.forTables(List.of(TableId.parse("keyless")));
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> refusing.check(150000, DecoderRequest.text(), this.catalog))
			.withMessageContaining("tables [public.keyless] have no primary key or replica identity index");
		Wal2JsonDecoder insertOnly = refusing.allowingInsertOnlyTables(true);
		assertThat(insertOnly.check(150000, DecoderRequest.text(), this.catalog)).isEqualTo(DecoderRequest.text());
		this.database.execute("SELECT pg_create_logical_replication_slot('keyless_wal2json', 'wal2json')",
				"INSERT INTO keyless VALUES ('a')", "UPDATE keyless SET v = 'b'", "DELETE FROM keyless",
				"INSERT INTO keyless VALUES ('c')");
		List<Transaction> delivered = read("keyless_wal2json", insertOnly, 2);
		// The update and the delete never reach the stream.
		assertThat(delivered).hasSize(2)
			.allSatisfy((transaction) -> assertThat(transaction.changes()).singleElement()
				.satisfies((change) -> assertThat(change.operation()).hasToString("INSERT")));
		assertThat(delivered.get(1).changes().get(0).after().get("v")).isEqualTo("c");
	}

	@Test
	void wal2json25HasNoNumbersAsStringsAndSendsNonFiniteFloatsAsNull() throws Exception {
		this.database.execute("SELECT pg_create_logical_replication_slot('numbers_wal2json', 'wal2json')");
		try (Connection connection = this.database.connect()) {
			assertThat(Wal2JsonDecoder.acceptsNumericsAsStrings(connection, "numbers_wal2json")).isFalse();
		}
		Wal2JsonDecoder decoder = Wal2JsonDecoder.forTables(List.of(TableId.parse("keyed")));
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> decoder.check(150000, DecoderRequest.text(), this.catalog))
			.withMessageContaining("columns [public.keyed.ratio] are float4, float8 or numeric");
		this.database.execute("INSERT INTO keyed VALUES (1, 'NaN')");
		Transaction nan = read("numbers_wal2json", decoder.allowingNonFiniteNumbersAsNull(true), 1).get(0);
		assertThat(nan.changes().get(0).after().get("ratio")).isNull();
		assertThatExceptionOfType(java.sql.SQLException.class)
			.isThrownBy(() -> read("numbers_wal2json", decoder.withNumericsAsStrings(true), 1))
			.withMessageContaining("option \"numeric-data-types-as-string\" = \"true\" is unknown");
	}

	@Test
	void pglogicalNeedsItsReplicationSetsAndRefusesFullTablesInUpdatingSets() {
		PgLogicalDecoder decoder = PgLogicalDecoder.forReplicationSets(List.of("no_such_set"));
		assertThatExceptionOfType(PostlogException.class)
			.isThrownBy(() -> decoder.check(150000, DecoderRequest.text(), this.catalog))
			.withMessageContaining("pglogical replication sets [no_such_set] do not exist on the local node");
		this.database.execute("SELECT pglogical.create_replication_set('refusals_set')",
				"SELECT pglogical.replication_set_add_table('refusals_set', 'keyed')");
		assertThat(this.catalog.replicationSetTables(List.of("refusals_set"))).containsExactly(TableId.parse("keyed"));
		assertThat(PgLogicalDecoder.forReplicationSets(List.of("refusals_set"))
			.check(150000, DecoderRequest.text(), this.catalog)).isEqualTo(DecoderRequest.text());
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.database
				.execute("SELECT pglogical.replication_set_add_table('refusals_set', " + "'full_keyed')"))
			.withMessageContaining("cannot be added to replication set");
	}

	private List<Transaction> read(String slot, LogicalDecoder decoder, int count) throws Exception {
		TransactionAssembler assembler = new TransactionAssembler(slot, ValueDecoders.standard());
		try (PluginStream stream = PluginStream.open(this.database, slot, decoder, DecoderRequest.text(),
				this.catalog)) {
			while (assembler.transactions().size() < count) {
				stream.readTransaction().forEach((decoded) -> assembler.accept(decoded.messages()));
			}
		}
		return assembler.transactions();
	}

}
