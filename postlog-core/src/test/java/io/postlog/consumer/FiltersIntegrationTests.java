package io.postlog.consumer;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.admin.PublicationFilterException;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.ServerVersionException;
import io.postlog.admin.TableFilter;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Row filters and column lists pushed into the publication: the stream, the initial
 * snapshot and a backfill deliver exactly the rows and columns that the same
 * {@code SELECT} gives (PostgreSQL 15 and later); filters the server refuses, or under
 * which it would refuse updates, fail start-up naming the table and the clause; an
 * existing publication that publishes a table with another filter is refused; and before
 * 15 filters are refused naming the server's version, with nothing set up.
 */
@Tag("matrix")
@PostgresTest
class FiltersIntegrationTests {

	private static final String ORDERS_WHERE = "status = 'open' AND amount > 10";

	private static final TableFilter ORDERS = new TableFilter(ORDERS_WHERE, List.of());

	private static final TableFilter CUSTOMERS = new TableFilter("id % 2 = 0", List.of("id", "name"));

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	/** Each test's tables are in a schema of its own: the database is the class's. */
	private String schema = "public";

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void streamSnapshotAndBackfillDeliverExactlyWhatTheSameSelectGives(PostgresDatabase database) throws Exception {
		Assumptions.assumeTrue(database.serverVersion() >= 150000, "filters need PostgreSQL 15");
		createTables(database, "f_stream");
		database.execute(
				"INSERT INTO f_orders SELECT g, CASE WHEN g % 3 = 0 THEN 'open' ELSE 'closed' END, g % 40, 'n' || g"
						+ " FROM generate_series(1, 300) g",
				"INSERT INTO f_customers SELECT g, 'name' || g, 'mail' || g, 'secret' || g FROM generate_series(1, 200) g");
		Map<String, Map<String, Object>> stream = new ConcurrentHashMap<>();
		Map<String, Map<String, Object>> snapshot = new ConcurrentHashMap<>();
		Map<String, Map<String, Object>> backfill = new ConcurrentHashMap<>();
		AtomicBoolean backfilling = new AtomicBoolean();
		ReplicationConsumer consumer = start(builder(database, "f_slot", "f_pub").initialSnapshot(2, 50)
			.backfills(40)
			.subscribe(Subscription.onChange("model", (change) -> {
				if (change.operation() == Operation.SNAPSHOT) {
					apply(backfilling.get() ? backfill : snapshot, change);
				}
				apply(stream, change);
			})));
		await().atMost(Duration.ofMinutes(1)).until(() -> consumer.state() == ConsumerState.RUNNING);
		assertThat(snapshot).as("snapshot against the filtered SELECT").isEqualTo(select(database));
		database.execute("INSERT INTO f_orders SELECT g, 'open', g % 40, 'n' || g FROM generate_series(301, 400) g",
				"UPDATE f_orders SET status = 'open' WHERE id % 5 = 0",
				"UPDATE f_orders SET amount = 5 WHERE id % 7 = 0", "DELETE FROM f_orders WHERE id % 11 = 0",
				"UPDATE f_customers SET name = 'renamed' || id, secret = 'changed' WHERE id % 4 = 0",
				"INSERT INTO f_customers SELECT g, 'name' || g, 'mail' || g, 's' FROM generate_series(201, 260) g",
				"DELETE FROM f_customers WHERE id % 6 = 0", "INSERT INTO f_orders VALUES (-1, 'open', 99, 'sentinel')");
		await().atMost(Duration.ofMinutes(1)).until(() -> stream.containsKey("f_orders:-1"));
		assertThat(stream).as("stream against the filtered SELECT").isEqualTo(select(database));
		backfilling.set(true);
		Backfill requested = consumer.backfill(List.of(table("f_orders"), table("f_customers")));
		await().atMost(Duration.ofMinutes(1)).until(() -> requested.state() == Backfill.State.COMPLETED);
		assertThat(backfill).as("backfill against the filtered SELECT").isEqualTo(select(database));
		try (Connection connection = database.connect()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			Map<TableId, TableFilter> held = admin.publicationFilters("f_pub");
			assertThat(held.keySet()).containsExactlyInAnyOrder(table("f_orders"), table("f_customers"));
			assertThat(held.get(table("f_customers")).columns()).containsExactly("id", "name");
			assertThat(held.get(table("f_orders")).where()).contains("'open'").contains("amount > 10");
		}
	}

	@Test
	void anExistingPublicationWithTheSameFiltersSpelledOtherwiseIsAccepted(PostgresDatabase database) throws Exception {
		Assumptions.assumeTrue(database.serverVersion() >= 150000, "filters need PostgreSQL 15");
		createTables(database, "f_same");
		database.execute("CREATE PUBLICATION same_pub FOR TABLE f_orders WHERE ((amount > 10) and status='open'),"
				+ " f_customers (name, id) WHERE (id % 2 = 0)");
		ReplicationConsumer consumer = builder(database, "same_slot", "same_pub").filters(Map.of(table("f_orders"),
				new TableFilter("(amount > 10) AND (status = 'open')", List.of()), table("f_customers"), CUSTOMERS))
			.changeHandler((change) -> {
			})
			.build();
		this.consumers.add(consumer);
		consumer.start();
		await().atMost(Duration.ofMinutes(1)).until(() -> consumer.state() == ConsumerState.RUNNING);
	}

	@Test
	void anExistingPublicationWithOtherFiltersIsRefusedInEveryMode(PostgresDatabase database) throws Exception {
		Assumptions.assumeTrue(database.serverVersion() >= 150000, "filters need PostgreSQL 15");
		createTables(database, "f_other");
		database.execute("CREATE PUBLICATION other_pub FOR TABLE f_orders WHERE (status = 'open'),"
				+ " f_customers (id, name) WHERE (id % 2 = 0)");
		for (PublicationMode mode : PublicationMode.values()) {
			ReplicationConsumer consumer = builder(database, "other_slot", "other_pub").publicationMode(mode)
				.changeHandler((change) -> {
				})
				.build();
			this.consumers.add(consumer);
			assertThatExceptionOfType(PublicationFilterException.class).as(mode.name())
				.isThrownBy(consumer::start)
				.satisfies((ex) -> assertThat(ex.table()).isEqualTo(table("f_orders")))
				.withMessageContaining("Filter of table " + this.schema + ".f_orders (where (" + ORDERS_WHERE + ")")
				.withMessageContaining("already publishes it with where ((status = 'open'::text))");
			consumer.stop();
		}
		database.execute("CREATE PUBLICATION cols_pub FOR TABLE f_orders WHERE (" + ORDERS_WHERE + "),"
				+ " f_customers (id, name, email) WHERE (id % 2 = 0)");
		ReplicationConsumer columns = builder(database, "other_slot", "cols_pub").changeHandler((change) -> {
		}).build();
		this.consumers.add(columns);
		assertThatExceptionOfType(PublicationFilterException.class).isThrownBy(columns::start)
			.satisfies((ex) -> assertThat(ex.table()).isEqualTo(table("f_customers")))
			.withMessageContaining("already publishes it with where (((id % 2) = 0)), columns [id, name, email]");
		columns.stop();
		assertThat(slots(database, "other_slot")).isEqualTo("0");
		try (Connection connection = database.connect()) {
			assertThat(new ReplicationAdmin(connection).publicationFilters("other_pub").get(table("f_orders")))
				.as("the publication is left as it was")
				.isEqualTo(new TableFilter("(status = 'open'::text)", List.of()));
		}
	}

	@Test
	void filtersTheServerRefusesFailStartUpNamingTheTableAndTheClauseAndSetUpNothing(PostgresDatabase database)
			throws Exception {
		Assumptions.assumeTrue(database.serverVersion() >= 150000, "filters need PostgreSQL 15");
		createTables(database, "f_bad");
		refused(database, new TableFilter("no_such_column = 1", List.of()), "f_orders",
				"Filter of table " + this.schema
						+ ".f_orders (where (no_such_column = 1), every column) is refused: the server "
						+ "refused it: ERROR: column \"no_such_column\" does not exist");
		refused(database, new TableFilter(null, List.of("id", "nope")), "f_customers", "Filter of table " + this.schema
				+ ".f_customers (every row, columns [id, nope]) is refused: the server refused it");
		refused(database, new TableFilter("name = 'x'", List.of()), "f_customers",
				"its row filter uses [name], outside the table's replica identity [id]");
		refused(database, new TableFilter(null, List.of("name")), "f_customers",
				"its column list leaves out [id] of the table's replica identity");
		refused(database, new TableFilter("true; DROP TABLE f_orders", List.of()), "f_orders",
				"the row filter must be one SQL expression, and it holds ';'");
		refused(database, new TableFilter("status = 'open') OR (true", List.of()), "f_orders",
				"a ')' closes more than it opened");
		assertThat(ReplicationConsumerIntegrationTests.query(database,
				"SELECT count(*)::text FROM pg_publication WHERE pubname = 'bad_pub'"))
			.as("no publication was created")
			.isEqualTo("0");
		assertThat(slots(database, "bad_slot")).as("no slot was created").isEqualTo("0");
		assertThat(ReplicationConsumerIntegrationTests.query(database, "SELECT count(*)::text FROM f_orders"))
			.isEqualTo("0");
	}

	@Test
	void filtersAreRefusedBeforePostgresFifteenNamingTheServerVersion(PostgresDatabase database) throws Exception {
		Assumptions.assumeTrue(database.serverVersion() < 150000, "servers from 15 on take filters");
		createTables(database, "f_old");
		ReplicationConsumer consumer = builder(database, "old_slot", "old_pub").changeHandler((change) -> {
		}).build();
		this.consumers.add(consumer);
		int major = database.serverVersion() / 10000;
		assertThatExceptionOfType(ServerVersionException.class).isThrownBy(consumer::start)
			.withMessageContaining("Row filters and column lists (postlog.filters) need PostgreSQL 15 or later")
			.withMessageContaining("the server is PostgreSQL " + major + ".");
		assertThat(consumer.state()).isEqualTo(ConsumerState.FAILED);
		assertThat(slots(database, "old_slot")).as("no slot was created").isEqualTo("0");
		assertThat(ReplicationConsumerIntegrationTests.query(database,
				"SELECT count(*)::text FROM pg_publication WHERE pubname = 'old_pub'"))
			.as("no publication was created")
			.isEqualTo("0");
	}

	private void refused(PostgresDatabase database, TableFilter filter, String table, String message) {
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName("bad_slot")
			.publicationName("bad_pub")
			.tables(List.of(table("f_orders"), table("f_customers")))
			.filters(Map.of(table(table), filter))
			.changeHandler((change) -> {
			})
			.build();
		this.consumers.add(consumer);
		assertThatExceptionOfType(PublicationFilterException.class).isThrownBy(consumer::start)
			.satisfies((ex) -> assertThat(ex.table()).isEqualTo(table(table)))
			.withMessageContaining(message);
		consumer.stop();
	}

	private void createTables(PostgresDatabase database, String schema) {
		this.schema = schema;
		database.execute("CREATE SCHEMA " + schema,
				"ALTER DATABASE \"" + database.name() + "\" SET search_path = " + schema);
		database.execute(
				"CREATE TABLE f_orders (id int PRIMARY KEY, status text NOT NULL, amount int NOT NULL, note text)",
				"ALTER TABLE f_orders REPLICA IDENTITY FULL",
				"CREATE TABLE f_customers (id int PRIMARY KEY, name text, email text, secret text)");
	}

	private ReplicationConsumer.Builder builder(PostgresDatabase database, String slot, String publication) {
		return ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName(slot)
			.publicationName(publication)
			.tables(List.of(table("f_orders"), table("f_customers")))
			.filters(Map.of(table("f_orders"), ORDERS, table("f_customers"), CUSTOMERS))
			.statusInterval(Duration.ofSeconds(1))
			.stopTimeout(Duration.ofSeconds(10));
	}

	private TableId table(String name) {
		return new TableId(this.schema, name);
	}

	private ReplicationConsumer start(ReplicationConsumer.Builder builder) {
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		consumer.start();
		return consumer;
	}

	private static void apply(Map<String, Map<String, Object>> model, Change change) {
		if (change.operation() == Operation.DELETE) {
			model.remove(change.table().name() + ":" + change.before().get("id"));
		}
		else if (change.after() != null) {
			model.put(change.table().name() + ":" + change.after().get("id"), change.after().asMap());
		}
	}

	/**
	 * The same SELECT as the filters: the rows and columns the publication should send.
	 */
	private static Map<String, Map<String, Object>> select(PostgresDatabase database) throws Exception {
		Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			read(statement, "SELECT * FROM f_orders WHERE " + ORDERS_WHERE, "f_orders", rows);
			read(statement, "SELECT id, name FROM f_customers WHERE id % 2 = 0", "f_customers", rows);
		}
		return rows;
	}

	private static void read(Statement statement, String sql, String table, Map<String, Map<String, Object>> rows)
			throws Exception {
		try (ResultSet row = statement.executeQuery(sql)) {
			ResultSetMetaData meta = row.getMetaData();
			while (row.next()) {
				Map<String, Object> values = new LinkedHashMap<>();
				for (int i = 1; i <= meta.getColumnCount(); i++) {
					values.put(meta.getColumnName(i), row.getObject(i));
				}
				rows.put(table + ":" + values.get("id"), values);
			}
		}
	}

	private static String slots(PostgresDatabase database, String slot) throws Exception {
		return ReplicationConsumerIntegrationTests.query(database,
				"SELECT count(*)::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
	}

}
