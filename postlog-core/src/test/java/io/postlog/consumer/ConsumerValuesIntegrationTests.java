package io.postlog.consumer;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.CapturedStdErr;
import io.postlog.Row;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Values of unusual types through the consumer, in text and (on 14+) binary: the vector
 * types, a domain and an enum dropped before the consumer decodes their changes (the
 * stream's Type messages keep the domain's base type), and a column the server cannot
 * send in binary, for which the consumer streams text (an array of a type the catalog
 * look-up does not map is a list of raw elements).
 */
@Tag("matrix")
@PostgresTest
class ConsumerValuesIntegrationTests {

	private final PostgresDatabase database;

	private final boolean binary;

	ConsumerValuesIntegrationTests(PostgresDatabase database) {
		this.database = database;
		this.binary = database.serverVersion() >= 140000;
	}

	@Test
	void vectorsArriveAsListsInBothFormats() {
		this.database.execute("CREATE TABLE vectors (id int PRIMARY KEY, a int2vector, b oidvector)",
				"CREATE PUBLICATION vectors_pub FOR TABLE vectors",
				"SELECT pg_create_logical_replication_slot('vectors_text', 'pgoutput')",
				"SELECT pg_create_logical_replication_slot('vectors_binary', 'pgoutput')",
				"INSERT INTO vectors VALUES (1, '1 2 -32768', '23 4294967295')");
		for (boolean binary : formats()) {
			Row row = delivered(binary ? "vectors_binary" : "vectors_text", "vectors_pub", binary).get(0);
			assertThat(row.asMap()).as("binary: %s", binary)
				.containsExactly(entry("id", 1), entry("a", List.of((short) 1, (short) 2, (short) -32768)),
						entry("b", List.of(23L, 4294967295L)));
		}
	}

	@Test
	void domainAndEnumDroppedBeforeTheConsumerDecodesThemKeepWhatTheStreamTellsOfThem() {
		this.database.execute("CREATE DOMAIN gone_amount AS numeric(10, 2) CHECK (VALUE > 0)",
				"CREATE DOMAIN gone_sizes AS int4[]", "CREATE TYPE gone_mood AS ENUM ('sad', 'happy')",
				"CREATE TABLE gone (id int PRIMARY KEY, amount gone_amount, sizes gone_sizes, mood gone_mood)",
				"CREATE PUBLICATION gone_pub FOR TABLE gone",
				"SELECT pg_create_logical_replication_slot('gone_text', 'pgoutput')",
				"SELECT pg_create_logical_replication_slot('gone_binary', 'pgoutput')",
				"INSERT INTO gone VALUES (1, 1.50, '{1,2}', 'happy')",
				"ALTER TABLE gone DROP COLUMN amount, DROP COLUMN sizes, DROP COLUMN mood", "DROP DOMAIN gone_amount",
				"DROP DOMAIN gone_sizes", "DROP TYPE gone_mood");
		for (boolean binary : formats()) {
			try (CapturedStdErr log = CapturedStdErr.start()) {
				Row row = delivered(binary ? "gone_binary" : "gone_text", "gone_pub", binary).get(0);
				assertThat(row.get("amount")).as("binary: %s", binary).isEqualTo(new BigDecimal("1.50"));
				assertThat(row.get("sizes")).as("binary: %s", binary).isEqualTo(List.of(1, 2));
				// An enum's announcement does not say it is an enum: once dropped, raw,
				// which in text is its label.
				assertThat(row.get("mood")).as("binary: %s", binary)
					.isEqualTo(binary ? "happy".getBytes(StandardCharsets.UTF_8) : "happy");
				assertThat(log.text()).contains("public.gone_mood").contains("raw");
			}
		}
	}

	@Test
	void aColumnTheServerCannotSendInBinaryMakesTheStreamTextWithOneWarning() {
		Assumptions.assumeTrue(this.binary, "binary values need PostgreSQL 14");
		this.database.execute("CREATE TABLE acl_list_only (id int PRIMARY KEY, list aclitem[], n numeric)",
				"CREATE PUBLICATION acls_pub FOR TABLE acl_list_only",
				"SELECT pg_create_logical_replication_slot('acls_slot', 'pgoutput')",
				"INSERT INTO acl_list_only VALUES (1, '{postgres=r/postgres}', 2.50)");
		try (CapturedStdErr log = CapturedStdErr.start()) {
			Row row = delivered("acls_slot", "acls_pub", true).get(0);
			assertThat(row.asMap()).containsExactly(entry("id", 1), entry("list", List.of("postgres=r/postgres")),
					entry("n", new BigDecimal("2.50")));
			assertThat(log.text().lines().filter((line) -> line.contains("in binary")))
				.singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
				.contains("public.acl_list_only.list (aclitem[], holding aclitem)")
				.contains("slot acls_slot streams text values");
		}
	}

	private List<Boolean> formats() {
		return this.binary ? List.of(false, true) : List.of(false);
	}

	/** The rows a consumer delivers from the slot until the first transaction's end. */
	private List<Row> delivered(String slot, String publication, boolean binary) {
		List<Row> rows = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(this.database.jdbcUrl(), this.database.username(), null)
			.slotName(slot)
			.slotLifecycle(SlotLifecycle.EXISTING)
			.publicationName(publication)
			.publicationMode(PublicationMode.EXISTING)
			.binary(binary)
			.transactionHandler((transaction) -> transaction.changes().forEach((change) -> rows.add(change.after())))
			.build();
		try {
			consumer.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> !rows.isEmpty());
			assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
		}
		finally {
			consumer.stop();
		}
		return List.copyOf(rows);
	}

	private static Map.Entry<String, @Nullable Object> entry(String key, @Nullable Object value) {
		return new AbstractMap.SimpleEntry<>(key, value);
	}

}
