package io.postlog.kafka;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.postlog.TableId;
import io.postlog.admin.PublicationFilterException;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.ServerVersionException;
import io.postlog.admin.TableFilter;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * {@code postlog.kafka.filters} on a real server and a real KRaft broker: on PostgreSQL
 * 15 and later the relay's publication holds the row filters and column lists, and the
 * records on the topics are exactly the rows and columns that the same {@code SELECT}
 * gives; a publication that already publishes a table with another filter fails start-up
 * and is left as it was; before 15 filters fail start-up naming the server's version,
 * with no slot or publication created.
 */
@PostgresTest
class KafkaRelayFiltersIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final String ORDERS_WHERE = "status = 'open' AND amount > 10";

	@RegisterExtension
	static final KafkaTestBroker broker = KafkaTestBroker.perClass();

	@Test
	void recordsAreExactlyTheRowsAndColumnsOfTheSameSelect(PostgresDatabase database) throws Exception {
		Assumptions.assumeTrue(database.serverVersion() >= 150000, "filters need PostgreSQL 15");
		createTables(database, "kf");
		try (ConfigurableApplicationContext context = run(database, "kf")) {
			database.execute(
					"INSERT INTO kf_orders SELECT g, CASE WHEN g % 3 = 0 THEN 'open' ELSE 'closed' END, g % 40, 'n' || g"
							+ " FROM generate_series(1, 300) g",
					"INSERT INTO kf_customers SELECT g, 'name' || g, 'mail' || g, 'secret' || g"
							+ " FROM generate_series(1, 200) g",
					"UPDATE kf_orders SET status = 'open' WHERE id % 5 = 0",
					"UPDATE kf_orders SET amount = 5 WHERE id % 7 = 0", "DELETE FROM kf_orders WHERE id % 11 = 0",
					"UPDATE kf_customers SET name = 'renamed' || id, secret = 'changed' WHERE id % 4 = 0",
					"DELETE FROM kf_customers WHERE id % 6 = 0");
			Map<String, Map<String, String>> expected = select(database, "kf");
			// Each reading waits for the topic to be quiet; the relay may still be
			// behind.
			await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
				Map<String, Map<String, String>> relayed = new LinkedHashMap<>();
				apply(relayed, broker.readAll("public.kf_orders", 1, Duration.ofSeconds(20)));
				apply(relayed, broker.readAll("public.kf_customers", 1, Duration.ofSeconds(20)));
				assertThat(relayed).as("records against the filtered SELECT").isEqualTo(expected);
			});
			try (Connection connection = database.connect()) {
				Map<TableId, TableFilter> held = new ReplicationAdmin(connection).publicationFilters("kf_pub");
				assertThat(held.get(TableId.parse("kf_customers")).columns()).containsExactly("id", "name");
				assertThat(held.get(TableId.parse("kf_orders")).where()).contains("'open'").contains("amount > 10");
			}
		}
	}

	@Test
	void anExistingPublicationWithOtherFiltersFailsStartUpAndIsLeftAsItWas(PostgresDatabase database) throws Exception {
		Assumptions.assumeTrue(database.serverVersion() >= 150000, "filters need PostgreSQL 15");
		createTables(database, "kx");
		// Only kx_orders differs from the configuration (were both to differ, either
		// could be named first).
		database.execute("CREATE PUBLICATION kx_pub FOR TABLE kx_orders WHERE (status = 'open'),"
				+ " kx_customers (id, name) WHERE (id % 2 = 0)");
		assertThatException().isThrownBy(() -> run(database, "kx").close())
			.havingRootCause()
			.isInstanceOfSatisfying(PublicationFilterException.class,
					(ex) -> assertThat(ex.table()).isEqualTo(TableId.parse("kx_orders")))
			.withMessageContaining("Filter of table public.kx_orders (where (" + ORDERS_WHERE + ")")
			.withMessageContaining("already publishes it with where ((status = 'open'::text))");
		try (Connection connection = database.connect()) {
			assertThat(new ReplicationAdmin(connection).publicationFilters("kx_pub"))
				.as("the publication is left as it was")
				.isEqualTo(Map.of(TableId.parse("kx_orders"), new TableFilter("(status = 'open'::text)", List.of()),
						TableId.parse("kx_customers"), new TableFilter("((id % 2) = 0)", List.of("id", "name"))));
		}
		assertThat(count(database, "pg_replication_slots WHERE slot_name = 'kx_slot'")).isZero();
	}

	@Test
	void filtersAreRefusedBeforePostgresFifteenNamingTheServerVersion(PostgresDatabase database) throws Exception {
		Assumptions.assumeTrue(database.serverVersion() < 150000, "servers from 15 on take filters");
		createTables(database, "ko");
		int major = database.serverVersion() / 10000;
		assertThatException().isThrownBy(() -> run(database, "ko").close())
			.havingRootCause()
			.isInstanceOf(ServerVersionException.class)
			.withMessageContaining("Row filters and column lists (postlog.filters) need PostgreSQL 15 or later")
			.withMessageContaining("the server is PostgreSQL " + major + ".");
		assertThat(count(database, "pg_replication_slots WHERE slot_name = 'ko_slot'")).as("no slot").isZero();
		assertThat(count(database, "pg_publication WHERE pubname = 'ko_pub'")).as("no publication").isZero();
	}

	private static ConfigurableApplicationContext run(PostgresDatabase database, String prefix) {
		SpringApplication application = new SpringApplication(RelayApplication.class);
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.datasource.url", database.jdbcUrl());
		properties.put("spring.datasource.username", database.username());
		properties.put("spring.kafka.bootstrap-servers", broker.bootstrapServers());
		properties.put("spring.main.banner-mode", "off");
		properties.put("postlog.status-interval", "1s");
		properties.put("postlog.kafka.enabled", "true");
		properties.put("postlog.kafka.tables", prefix + "_orders," + prefix + "_customers");
		properties.put("postlog.kafka.slot.name", prefix + "_slot");
		properties.put("postlog.kafka.publication.name", prefix + "_pub");
		properties.put("postlog.kafka.offsets-topic", prefix + ".offsets");
		properties.put("postlog.kafka.filters." + prefix + "_orders.where", ORDERS_WHERE);
		properties.put("postlog.kafka.filters[public." + prefix + "_customers].where", "id % 2 = 0");
		properties.put("postlog.kafka.filters[public." + prefix + "_customers].columns", "id,name");
		application.setDefaultProperties(properties);
		return application.run();
	}

	private static void createTables(PostgresDatabase database, String prefix) {
		database.execute(
				"CREATE TABLE " + prefix
						+ "_orders (id int PRIMARY KEY, status text NOT NULL, amount int NOT NULL, note text)",
				"ALTER TABLE " + prefix + "_orders REPLICA IDENTITY FULL",
				"CREATE TABLE " + prefix + "_customers (id int PRIMARY KEY, name text, email text, secret text)");
	}

	/**
	 * Applies change records to a model keyed by table and id: an insert or update puts
	 * its after image, a delete removes the row.
	 */
	private static void apply(Map<String, Map<String, String>> model, List<ConsumerRecord<byte[], byte[]>> records) {
		for (ConsumerRecord<byte[], byte[]> record : records) {
			if (record.value() == null) {
				continue;
			}
			JsonNode change = json.readTree(record.value());
			String table = change.get("table").get("name").stringValue();
			if (change.get("op").stringValue().equals("DELETE")) {
				model.remove(table + ":" + change.get("before").get("id").toString());
			}
			else {
				Map<String, String> values = new LinkedHashMap<>();
				change.get("after")
					.properties()
					.forEach((field) -> values.put(field.getKey(), field.getValue().isString()
							? field.getValue().stringValue() : field.getValue().toString()));
				model.put(table + ":" + values.get("id"), values);
			}
		}
	}

	/**
	 * The same SELECT as the filters: the rows and columns the publication should send.
	 */
	private static Map<String, Map<String, String>> select(PostgresDatabase database, String prefix) throws Exception {
		Map<String, Map<String, String>> rows = new LinkedHashMap<>();
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			read(statement, "SELECT * FROM " + prefix + "_orders WHERE " + ORDERS_WHERE, prefix + "_orders", rows);
			read(statement, "SELECT id, name FROM " + prefix + "_customers WHERE id % 2 = 0", prefix + "_customers",
					rows);
		}
		return rows;
	}

	private static void read(Statement statement, String sql, String table, Map<String, Map<String, String>> rows)
			throws Exception {
		try (ResultSet row = statement.executeQuery(sql)) {
			ResultSetMetaData meta = row.getMetaData();
			while (row.next()) {
				Map<String, String> values = new LinkedHashMap<>();
				for (int i = 1; i <= meta.getColumnCount(); i++) {
					values.put(meta.getColumnName(i), row.getString(i));
				}
				rows.put(table + ":" + values.get("id"), values);
			}
		}
	}

	private static long count(PostgresDatabase database, String fromWhere) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT count(*) FROM " + fromWhere)) {
			row.next();
			return row.getLong(1);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RelayApplication {

	}

}
