package io.postlog.kafka;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.RetryPolicy;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Schema changes relayed to {@code postlog.kafka.schema-topic} on a real PostgreSQL and a
 * real KRaft broker, read back with {@code read_committed} consumers: each in the Kafka
 * transaction of the first change in its new shape, in commit order with the changes.
 */
@PostgresTest
class KafkaRelaySchemaIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static KafkaTestBroker broker;

	@BeforeAll
	static void startBroker() {
		broker = KafkaTestBroker.start();
	}

	@AfterAll
	static void stopBroker() {
		broker.close();
	}

	@Test
	void schemaChangesGoToTheSchemaTopicInCommitOrderWithTheChanges(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE meters (id int PRIMARY KEY, reading int)");
		KafkaRelay relay = relay(database, "relay_schema");
		relay.start();
		try {
			try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
				statement.execute("INSERT INTO meters VALUES (1, 10)");
				statement.execute("ALTER TABLE meters ADD COLUMN unit text");
				statement.execute("INSERT INTO meters VALUES (2, 20, 'kWh')");
				statement.execute("ALTER TABLE meters RENAME COLUMN reading TO value");
				statement.execute("INSERT INTO meters VALUES (3, 30, 'kWh')");
			}
			List<ConsumerRecord<byte[], byte[]>> schema = broker.readAll("postlog.schema", 2, Duration.ofSeconds(60));
			List<ConsumerRecord<byte[], byte[]>> changes = broker.readAll("public.meters", 3, Duration.ofSeconds(60));
			assertThat(schema).hasSize(2);
			assertThat(changes).hasSize(3);
			JsonNode added = json.readTree(schema.get(0).value());
			JsonNode renamed = json.readTree(schema.get(1).value());
			assertThat(added.get("kind").asString()).isEqualTo("ADD_COLUMN");
			assertThat(renamed.get("kind").asString()).isEqualTo("RENAME_COLUMN");
			assertThat(new String(schema.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("public.meters");
			assertThat(added.get("after").get("columns").get(2).get("name").asString()).isEqualTo("unit");
			assertThat(added.get("after").get("columns").get(2).get("type").asString()).isEqualTo("text");
			assertThat(renamed.get("after").get("columns").get(1).get("name").asString()).isEqualTo("value");
			// In commit order with the changes: each schema change has the commit LSN of
			// the first change in its new shape, after the change before it.
			List<Lsn> changeLsns = new ArrayList<>();
			for (ConsumerRecord<byte[], byte[]> change : changes) {
				changeLsns.add(Lsn.parse(KafkaRelayIntegrationTests.header(change, "postlog-commit-lsn")));
			}
			changeLsns.sort(Comparator.naturalOrder());
			assertThat(Lsn.parse(added.get("commitLsn").asString())).isEqualTo(changeLsns.get(1));
			assertThat(Lsn.parse(renamed.get("commitLsn").asString())).isEqualTo(changeLsns.get(2));
			assertThat(KafkaRelayIntegrationTests.header(schema.get(0), "postlog-commit-lsn"))
				.isEqualTo(changeLsns.get(1).toString());
		}
		finally {
			relay.stop();
		}
	}

	private static KafkaRelay relay(PostgresDatabase database, String slot) {
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setUrl(database.jdbcUrl());
		dataSource.setUser(database.username());
		return KafkaRelay.builder()
			.consumer(ReplicationConsumer.builder()
				.jdbcUrl(database.jdbcUrl(), database.username(), null)
				.statusInterval(Duration.ofSeconds(1))
				.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1), 10)))
			.dataSource(dataSource)
			.slotName(slot)
			.publicationName(slot)
			.tables(List.of(TableId.parse("meters")))
			.schemaTopic("postlog.schema")
			.kafkaProperties(broker.clientProperties(), Map.of(), Map.of(), Map.of())
			.build();
	}

}
