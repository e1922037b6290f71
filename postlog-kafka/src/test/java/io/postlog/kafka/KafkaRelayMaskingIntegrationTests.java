package io.postlog.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.postlog.TableId;
import io.postlog.consumer.ColumnMasks;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A masked column never reaches a Kafka record in clear: the relay on a real PostgreSQL
 * and a real KRaft broker, with a hashed, a redacted and a nulled column, writes records
 * (key and value, after and before images of a {@code REPLICA IDENTITY FULL} table) that
 * hold only the masked values.
 */
@PostgresTest
class KafkaRelayMaskingIntegrationTests {

	private static final byte[] KEY = "relay-mask-key-0123456789".getBytes(StandardCharsets.UTF_8);

	private static final String SSN = "SSN-999-88-7777";

	private static final String EMAIL = "EMAIL-bob@example.org";

	private static final String NOTES = "NOTES-kafka-private";

	@RegisterExtension
	static final KafkaTestBroker broker = KafkaTestBroker.perClass();

	@Test
	void maskedColumnsNeverReachAKafkaRecordInClear(PostgresDatabase database) {
		database.execute("CREATE TABLE km_people (id int PRIMARY KEY, name text, ssn text, email text, notes text)",
				"ALTER TABLE km_people REPLICA IDENTITY FULL");
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setUrl(database.jdbcUrl());
		dataSource.setUser(database.username());
		ColumnMasks masks = ColumnMasks.of(Map.of(TableId.parse("km_people"),
				Map.of("ssn", ColumnMasks.Mask.HASH, "email", ColumnMasks.Mask.REDACT, "notes", ColumnMasks.Mask.NULL)),
				KEY);
		KafkaRelay relay = KafkaRelay.builder()
			.consumer(ReplicationConsumer.builder()
				.jdbcUrl(database.jdbcUrl(), database.username(), null)
				.statusInterval(Duration.ofSeconds(1))
				.masks(masks))
			.dataSource(dataSource)
			.slotName("km_relay")
			.publicationName("km_relay")
			.tables(List.of(TableId.parse("km_people")))
			.offsetsTopic("km.offsets")
			.kafkaProperties(broker.clientProperties(), Map.of(), Map.of(), Map.of())
			.build();
		relay.start();
		List<ConsumerRecord<byte[], byte[]>> records;
		try {
			database.execute("INSERT INTO km_people VALUES (1, 'Bob', '" + SSN + "', '" + EMAIL + "', '" + NOTES + "')",
					"UPDATE km_people SET name = 'Rob' WHERE id = 1", "DELETE FROM km_people WHERE id = 1");
			records = broker.readAll("public.km_people", 3, Duration.ofSeconds(60));
		}
		finally {
			relay.stop();
		}
		assertThat(records).hasSizeGreaterThanOrEqualTo(3);
		for (ConsumerRecord<byte[], byte[]> record : records) {
			// A delete may be followed by a tombstone: a key without a value.
			assertThat(text(record.key()) + " " + text(record.value())).doesNotContain(SSN, EMAIL, NOTES);
		}
		assertThat(records.stream().map((record) -> text(record.value()))).filteredOn((value) -> !value.isEmpty())
			.hasSize(3)
			.allSatisfy((value) -> assertThat(value).contains(ColumnMasks.REDACTED));
	}

	private static String text(byte[] bytes) {
		return (bytes != null) ? new String(bytes, StandardCharsets.UTF_8) : "";
	}

}
