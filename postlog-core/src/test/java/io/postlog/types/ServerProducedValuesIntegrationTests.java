package io.postlog.types;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import io.postlog.CapturedStdErr;
import io.postlog.PostlogException;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.admin.TableCatalog;
import io.postlog.admin.UnsendableColumn;
import io.postlog.stream.PgOutputCapture;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Values of unusual types as pgoutput streams them from a real server, in text and (on
 * 14+) binary: the vector types, a domain and an enum dropped before their changes are
 * decoded, and the types the server cannot send in binary.
 */
@Tag("matrix")
@PostgresTest
class ServerProducedValuesIntegrationTests {

	private final PostgresDatabase database;

	private final boolean binary;

	ServerProducedValuesIntegrationTests(PostgresDatabase database) {
		this.database = database;
		this.binary = database.serverVersion() >= 140000;
	}

	@Test
	void vectorsDecodeToListsInBothFormats() {
		this.database.execute("CREATE TABLE vectors (id int PRIMARY KEY, a int2vector, b oidvector, "
				+ "c int2vector[], d oidvector[])", "CREATE PUBLICATION vectors_pub FOR TABLE vectors");
		List<String> slots = slots("vectors", 2);
		this.database.execute("INSERT INTO vectors VALUES (1, '1 2 -32768', '23 4294967295', "
				+ "'{\"1 2\",\"3\"}', '{\"16 17\",\"\"}'), (2, '', '', '{}', NULL)");
		for (int i = 0; i < (this.binary ? 2 : 1); i++) {
			List<Row> rows = inserted(slots.get(i), "vectors_pub", i == 1, ValueDecoders.standard());
			assertThat(rows.get(0).asMap()).as("binary: %s", i == 1)
				.containsExactly(entry("id", 1), entry("a", List.of((short) 1, (short) 2, (short) -32768)),
						entry("b", List.of(23L, 4294967295L)),
						entry("c", List.of(List.of((short) 1, (short) 2), List.of((short) 3))),
						entry("d", List.of(List.of(16L, 17L), List.of())));
			assertThat(rows.get(1).asMap()).as("binary: %s", i == 1)
				.containsExactly(entry("id", 2), entry("a", List.of()), entry("b", List.of()), entry("c", List.of()),
						entry("d", null));
		}
	}

	@Test
	void domainAndEnumDroppedBeforeTheirChangesAreDecodedKeepTheirTypesWhereTheStreamTellsThem() {
		this.database.execute("CREATE DOMAIN gone_amount AS numeric(10, 2) CHECK (VALUE > 0)",
				"CREATE DOMAIN gone_sizes AS int4[]", "CREATE TYPE gone_mood AS ENUM ('sad', 'happy')",
				"CREATE TABLE gone (id int PRIMARY KEY, amount gone_amount, sizes gone_sizes, mood gone_mood)",
				"CREATE PUBLICATION gone_pub FOR TABLE gone");
		List<String> slots = slots("gone", 4);
		this.database.execute("INSERT INTO gone VALUES (1, 1.50, '{1,2}', 'happy')");
		ValueDecoders catalog = ValueDecoders.standard().withLookup(new CatalogTypes(this.database));
		for (int i = 0; i < (this.binary ? 2 : 1); i++) {
			Row before = inserted(slots.get(i), "gone_pub", i == 1, catalog).get(0);
			assertThat(before.asMap()).containsExactly(entry("id", 1),
					entry("amount", new java.math.BigDecimal("1.50")), entry("sizes", List.of(1, 2)),
					entry("mood", "happy"));
		}
		this.database.execute("ALTER TABLE gone DROP COLUMN amount, DROP COLUMN sizes, DROP COLUMN mood",
				"DROP DOMAIN gone_amount", "DROP DOMAIN gone_sizes", "DROP TYPE gone_mood");
		ValueDecoders afterDrop = ValueDecoders.standard().withLookup(new CatalogTypes(this.database));
		Row text = inserted(slots.get(2), "gone_pub", false, afterDrop).get(0);
		assertThat(text.asMap()).containsExactly(entry("id", 1), entry("amount", new java.math.BigDecimal("1.50")),
				entry("sizes", List.of(1, 2)), entry("mood", "happy"));
		if (this.binary) {
			try (CapturedStdErr log = CapturedStdErr.start()) {
				Row binaryRow = inserted(slots.get(3), "gone_pub", true, afterDrop).get(0);
				assertThat(binaryRow.get("amount")).isEqualTo(new java.math.BigDecimal("1.50"));
				assertThat(binaryRow.get("sizes")).isEqualTo(List.of(1, 2));
				// An enum's announcement does not say it is an enum: once dropped, raw.
				assertThat(binaryRow.get("mood")).isEqualTo("happy".getBytes(StandardCharsets.UTF_8));
				assertThat(log.text()).contains("public.gone_mood").contains("raw");
			}
		}
	}

	@Test
	void columnsTheServerCannotSendInBinaryAreFoundBeforeTheStreamFailsOnThem() throws SQLException {
		this.database.execute("CREATE DOMAIN acl_list AS aclitem[]", "CREATE TYPE with_acl AS (a aclitem, n int)",
				"CREATE TABLE acls (id int PRIMARY KEY, plain aclitem, list aclitem[], domain acl_list, "
						+ "composite with_acl, composites with_acl[], fine int4[])",
				"CREATE TABLE acl_list_only (id int PRIMARY KEY, list aclitem[])",
				"CREATE PUBLICATION acls_pub FOR TABLE acl_list_only");
		try (Connection connection = this.database.connect()) {
			List<UnsendableColumn> columns = new TableCatalog(connection)
				.typesWithoutBinarySend(List.of(TableId.parse("acls"), TableId.parse("missing")));
			assertThat(columns).extracting(UnsendableColumn::column)
				.containsExactly("list", "domain", "composite", "composites");
			assertThat(columns).extracting(UnsendableColumn::unsendableTypeName).containsOnly("aclitem");
			assertThat(columns.get(1)).hasToString("public.acls.domain (acl_list, holding aclitem)");
			assertThat(new TableCatalog(connection).typesWithoutBinarySend(List.of(TableId.parse("vectors_none"))))
				.isEmpty();
		}
		Assumptions.assumeTrue(this.binary, "binary values need PostgreSQL 14");
		List<String> slots = slots("acl_list_only", 2);
		this.database.execute("INSERT INTO acl_list_only VALUES (1, '{postgres=r/postgres}')");
		assertThat(inserted(slots.get(0), "acls_pub", false, ValueDecoders.standard()).get(0).get("list"))
			.isEqualTo("{postgres=r/postgres}");
		assertThatExceptionOfType(PostlogException.class)
			.isThrownBy(() -> inserted(slots.get(1), "acls_pub", true, ValueDecoders.standard()))
			.satisfies((ex) -> assertThat(ex).rootCause()
				.hasMessageContaining("no binary output function available for type aclitem"));
	}

	private List<String> slots(String name, int count) {
		List<String> slots = new java.util.ArrayList<>();
		for (int i = 0; i < count; i++) {
			String slot = name + "_" + i;
			this.database.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
			slots.add(slot);
		}
		return slots;
	}

	private List<Row> inserted(String slot, String publication, boolean binary, ValueDecoders values) {
		try (PgOutputCapture capture = PgOutputCapture.open(PgOutputCapture.connections(this.database), slot,
				publication, binary, values)) {
			return capture.readInsertedRows();
		}
	}

	private static java.util.Map.Entry<String, @Nullable Object> entry(String key, @Nullable Object value) {
		return new java.util.AbstractMap.SimpleEntry<>(key, value);
	}

}
