package io.postlog.decoder;

import java.util.List;
import java.util.Map;

import io.postlog.TableId;
import io.postlog.admin.CatalogColumn;
import io.postlog.admin.CatalogTable;
import io.postlog.admin.InvalidIdentifierException;
import io.postlog.types.PgType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.entry;

/**
 * The refusals at start and the options of each decoder, by server version (no 9.6 server
 * runs here, so its gates are tested on the version number).
 */
class DecoderChecksTests {

	private static final int PG96 = 90624;

	private static final int PG10 = 100023;

	private static final int PG13 = 130018;

	private static final int PG14 = 140018;

	private static final int PG16 = 160009;

	private static final DecoderRequest TEXT = DecoderRequest.text();

	private static final TableId ORDERS = TableId.parse("orders");

	private static final CatalogTable KEYED = new CatalogTable(ORDERS, 16384, 'd',
			List.of(column("id", PgType.INT8, true), column("note", PgType.TEXT, false)));

	private final PgOutputLogicalDecoder pgoutput = PgOutputLogicalDecoder.forPublications(List.of("pub"));

	@Test
	void pgoutputIsRefusedBelowPostgresql10BeforeAnySlotExists() {
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> this.pgoutput.check(PG96, TEXT, FakeCatalog.of()))
			.withMessage("Decoder pgoutput: pgoutput needs PostgreSQL 10 or later; the server is PostgreSQL "
					+ "9.6.24 (90624). Use decoder wal2json or pglogical there")
			.satisfies((ex) -> assertThat(ex.decoder()).isEqualTo("pgoutput"));
		assertThat(this.pgoutput.check(PG10, TEXT, FakeCatalog.of())).isEqualTo(TEXT);
	}

	@Test
	void pgoutputRefusesMessagesAndStreamingBelow14AndFallsBackToTextThere() {
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> this.pgoutput.check(PG13, new DecoderRequest(false, true, false), FakeCatalog.of()))
			.withMessageContaining("logical decoding messages need PostgreSQL 14")
			.withMessageContaining("13.18 (130018)");
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> this.pgoutput.check(PG13, new DecoderRequest(false, false, true), FakeCatalog.of()))
			.withMessageContaining("streaming in-progress transactions needs PostgreSQL 14");
		DecoderRequest binary = new DecoderRequest(true, false, false);
		assertThat(this.pgoutput.check(PG13, binary, FakeCatalog.of())).isEqualTo(TEXT);
		assertThat(this.pgoutput.check(PG14, binary, FakeCatalog.of())).isEqualTo(binary);
	}

	@Test
	void pgoutputOptionsFollowTheRequestAndTheServer() {
		PgOutputLogicalDecoder two = PgOutputLogicalDecoder.forPublications(List.of("orders", "Big \"One\""));
		assertThat(two.startOptions(PG14, TEXT)).containsExactly(entry("proto_version", "1"),
				entry("publication_names", "\"orders\",\"Big \"\"One\"\"\""));
		assertThat(this.pgoutput.startOptions(PG14, new DecoderRequest(true, true, true))).containsExactly(
				entry("proto_version", "2"), entry("publication_names", "\"pub\""), entry("binary", "true"),
				entry("messages", "true"), entry("streaming", "true"));
		assertThat(this.pgoutput.startOptions(PG16, new DecoderRequest(false, false, true)))
			.as("protocol 4 adds only parallel streaming")
			.containsEntry("proto_version", "2");
		assertThat(this.pgoutput.plugin()).isEqualTo("pgoutput");
		assertThat(this.pgoutput.tableSelection()).isEqualTo(new TableSelection.Publications(List.of("pub")));
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> PgOutputLogicalDecoder.forPublications(List.of("it's")));
	}

	@Test
	void wal2jsonRefusesWhatItCannotCarryNamingItself() {
		Wal2JsonDecoder wal2json = Wal2JsonDecoder.forTables(List.of(ORDERS));
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> wal2json.check(PG14, new DecoderRequest(true, false, false), FakeCatalog.of(KEYED)))
			.withMessage("Decoder wal2json: wal2json sends values as text only; turn binary values off "
					+ "(postlog.binary=false)");
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> wal2json.check(PG14, new DecoderRequest(false, false, true), FakeCatalog.of(KEYED)))
			.withMessageStartingWith("Decoder wal2json: wal2json cannot stream in-progress transactions");
		assertThat(wal2json.check(PG96, new DecoderRequest(false, true, false), FakeCatalog.of(KEYED)))
			.isEqualTo(new DecoderRequest(false, true, false));
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> wal2json.check(PG14, TEXT, FakeCatalog.of()))
			.withMessage("Decoder wal2json: tables [public.orders] do not exist");
	}

	@Test
	void wal2jsonRefusesTablesWhoseUpdatesAndDeletesItWouldDropUnlessInsertOnlyIsAllowed() {
		CatalogTable keyless = new CatalogTable(TableId.parse("events"), 16390, 'd',
				List.of(column("at", PgType.TIMESTAMPTZ, false)));
		CatalogTable nothing = new CatalogTable(TableId.parse("log"), 16391, 'n',
				List.of(column("id", PgType.INT4, false)));
		CatalogTable full = new CatalogTable(TableId.parse("loose"), 16392, 'f',
				List.of(column("v", PgType.TEXT, false)));
		Wal2JsonDecoder wal2json = Wal2JsonDecoder
			.forTables(List.of(ORDERS, keyless.table(), nothing.table(), full.table()));
		FakeCatalog catalog = FakeCatalog.of(KEYED, keyless, nothing, full);
		assertThatExceptionOfType(DecoderRefusedException.class).isThrownBy(() -> wal2json.check(PG14, TEXT, catalog))
			.withMessageStartingWith("Decoder wal2json: tables [public.events, public.log] have no primary key or "
					+ "replica identity index and are not REPLICA IDENTITY FULL, so wal2json would drop their updates "
					+ "and deletes without a word");
		assertThat(wal2json.allowingInsertOnlyTables(true).check(PG14, TEXT, catalog)).isEqualTo(TEXT);
	}

	@Test
	void wal2jsonRefusesNonFiniteCapableColumnsUnlessNumbersComeAsStringsOrTheLossIsAllowed() {
		CatalogTable measures = new CatalogTable(TableId.parse("measures"), 16400, 'd',
				List.of(column("id", PgType.INT4, true), column("ratio", PgType.FLOAT8, false),
						column("amount", PgType.NUMERIC, false), column("sizes", PgType.FLOAT8_ARRAY, false)));
		Wal2JsonDecoder wal2json = Wal2JsonDecoder.forTables(List.of(measures.table()));
		FakeCatalog catalog = FakeCatalog.of(measures);
		assertThatExceptionOfType(DecoderRefusedException.class).isThrownBy(() -> wal2json.check(PG14, TEXT, catalog))
			.withMessageStartingWith("Decoder wal2json: columns [public.measures.ratio, public.measures.amount] are "
					+ "float4, float8 or numeric, whose NaN and Infinity wal2json before 2.6 sends as null");
		assertThat(wal2json.withNumericsAsStrings(true).check(PG14, TEXT, catalog)).isEqualTo(TEXT);
		assertThat(wal2json.allowingNonFiniteNumbersAsNull(true).check(PG14, TEXT, catalog)).isEqualTo(TEXT);
		assertThat(wal2json.withNumericsAsStrings(true).startOptions(PG14, TEXT))
			.containsEntry("numeric-data-types-as-string", "true");
		assertThat(wal2json.startOptions(PG14, TEXT)).doesNotContainKey("numeric-data-types-as-string");
	}

	@Test
	void wal2jsonAsksForEveryMemberItDecodesAndEscapesTheTableList() {
		Wal2JsonDecoder wal2json = Wal2JsonDecoder
			.forTables(List.of(ORDERS, new TableId("my.schema", "a,b*c"), new TableId("s", "back\\slash name")));
		Map<String, String> options = wal2json.startOptions(PG14, TEXT);
		assertThat(options).containsExactly(entry("format-version", "2"), entry("include-xids", "true"),
				entry("include-timestamp", "true"), entry("include-origin", "true"), entry("include-lsn", "true"),
				entry("include-types", "true"), entry("include-type-oids", "true"),
				entry("include-domain-data-type", "true"), entry("include-pk", "true"),
				entry("add-tables", "public.orders,my\\.schema.a\\,b\\*c,s.back\\\\slash\\ name"));
		assertThat(wal2json.plugin()).isEqualTo("wal2json");
		assertThat(wal2json.capabilities().binary()).isFalse();
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> Wal2JsonDecoder.forTables(List.of()));
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> Wal2JsonDecoder.forTables(List.of(TableId.parse("it's"))));
	}

	@Test
	void pglogicalRefusesMessagesBinaryAndStreamingNamingItself() {
		PgLogicalDecoder pglogical = PgLogicalDecoder.forReplicationSets(List.of("postlog"));
		FakeCatalog catalog = new FakeCatalog(List.of(KEYED), Map.of(), Map.of("postlog", List.of(ORDERS)));
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> pglogical.check(PG14, new DecoderRequest(false, true, false), catalog))
			.withMessageStartingWith("Decoder pglogical: pglogical_output does not send logical decoding messages");
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> pglogical.check(PG14, new DecoderRequest(true, false, false), catalog))
			.withMessageContaining("text only");
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> pglogical.check(PG14, new DecoderRequest(false, false, true), catalog))
			.withMessageContaining("cannot stream in-progress transactions");
		assertThat(pglogical.check(PG96, TEXT, catalog)).isEqualTo(TEXT);
		assertThat(pglogical.plugin()).isEqualTo("pglogical_output");
		assertThat(PgLogicalDecoder.forReplicationSets(List.of("default", "Mine")).startOptions(PG14, TEXT))
			.containsExactly(entry("startup_params_format", "1"), entry("min_proto_version", "1"),
					entry("max_proto_version", "1"), entry("proto_format", "native"),
					entry("expected_encoding", "UTF8"), entry("pglogical.forward_origins", "all"),
					entry("pglogical.replication_set_names", "\"default\",\"Mine\""));
	}

	@Test
	void decodersRefuseServersOlderThanTheyRunOn() {
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> Wal2JsonDecoder.forTables(List.of(ORDERS)).check(90500, TEXT, FakeCatalog.of(KEYED)))
			.withMessageContaining("9.5.0 (90500)");
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> PgLogicalDecoder.forReplicationSets(List.of("s")).check(90500, TEXT, FakeCatalog.of()))
			.withMessageContaining("9.5.0 (90500)");
	}

	private static CatalogColumn column(String name, int typeOid, boolean key) {
		return new CatalogColumn(name, typeOid, -1, key, typeOid == PgType.TEXT, false);
	}

}
