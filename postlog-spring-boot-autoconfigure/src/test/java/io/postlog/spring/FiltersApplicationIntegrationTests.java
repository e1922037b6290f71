package io.postlog.spring;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Row;
import io.postlog.admin.PublicationFilterException;
import io.postlog.admin.ServerVersionException;
import io.postlog.spring.boot.actuate.PostlogEndpoint;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * {@code postlog.filters} and {@code postlog.groups.<name>.filters} in an application:
 * each group's listeners receive only the rows and columns of its filters, the endpoint
 * shows the filter in force per table, a filter the server refuses fails start-up naming
 * the table and the clause, and before PostgreSQL 15 filters fail start-up naming the
 * server's version.
 */
@PostgresTest
class FiltersApplicationIntegrationTests {

	@AfterEach
	void clear() {
		Listeners.orders.clear();
		Listeners.customers.clear();
	}

	@Test
	void eachGroupReceivesOnlyItsFilteredRowsAndColumnsAndTheEndpointShowsTheFilters(PostgresDatabase database) {
		Assumptions.assumeTrue(database.serverVersion() >= 150000, "filters need PostgreSQL 15");
		createTables(database);
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(FilteredApplication.class,
				database, "postlog.slot.name=fl_slot", "postlog.publication.name=fl_pub",
				"postlog.filters.fl_orders.where=status = 'open'",
				"postlog.groups.audit.filters.fl_customers.where=id > 100",
				"postlog.groups.audit.filters.fl_customers.columns=id,name")) {
			database.execute("INSERT INTO fl_orders VALUES (1, 'open', 10), (2, 'closed', 20), (3, 'open', 30)",
					"INSERT INTO fl_customers VALUES (7, 'low', 'low@example.org'), (107, 'high', 'high@example.org')");
			await().atMost(Duration.ofSeconds(30))
				.until(() -> Listeners.orders.size() == 2 && Listeners.customers.size() == 1);
			assertThat(Listeners.orders).extracting(Row::asMap)
				.containsExactly(Map.of("id", 1, "status", "open", "amount", 10),
						Map.of("id", 3, "status", "open", "amount", 30));
			assertThat(Listeners.customers).extracting(Row::asMap).containsExactly(Map.of("id", 107, "name", "high"));
			PostlogEndpoint endpoint = context.getBean(PostlogEndpoint.class);
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				Map<String, PostlogEndpoint.ConsumerDescriptor> consumers = new java.util.HashMap<>();
				endpoint.postlog().consumers().forEach((consumer) -> consumers.put(consumer.group(), consumer));
				assertThat(consumers.get("default").publication()).isEqualTo(new PostlogEndpoint.PublicationDescriptor(
						"fl_pub", List.of("public.fl_orders"), Map.of("public.fl_orders",
								new PostlogEndpoint.FilterDescriptor("(status = 'open'::text)", List.of()))));
				assertThat(consumers.get("audit").publication()).isEqualTo(new PostlogEndpoint.PublicationDescriptor(
						"postlog_audit", List.of("public.fl_customers"), Map.of("public.fl_customers",
								new PostlogEndpoint.FilterDescriptor("(id > 100)", List.of("id", "name")))));
			});
		}
	}

	@Test
	void aFilterTheServerRefusesFailsStartUpNamingTheTableAndTheClause(PostgresDatabase database) {
		Assumptions.assumeTrue(database.serverVersion() >= 150000, "filters need PostgreSQL 15");
		createTables(database);
		assertThatException()
			.isThrownBy(() -> PostlogListenersIntegrationTests.run(FilteredApplication.class, database,
					"postlog.slot.name=bad_slot", "postlog.publication.name=bad_pub",
					"postlog.filters.fl_orders.where=no_such_column = 1"))
			.havingRootCause()
			.isInstanceOf(java.sql.SQLException.class);
		assertThatException()
			.isThrownBy(() -> PostlogListenersIntegrationTests.run(FilteredApplication.class, database,
					"postlog.slot.name=bad_slot", "postlog.publication.name=bad_pub",
					"postlog.filters.fl_orders.where=no_such_column = 1"))
			.satisfies((ex) -> assertThat(cause(ex, PublicationFilterException.class)).isNotNull()
				.satisfies((filter) -> assertThat(filter.getMessage())
					.startsWith("Filter of table public.fl_orders (where (no_such_column = 1), every column) is "
							+ "refused: the server refused it: ERROR: column \"no_such_column\" does not exist")));
	}

	@Test
	void filtersFailStartUpBeforePostgresFifteenNamingTheServerVersion(PostgresDatabase database) {
		Assumptions.assumeTrue(database.serverVersion() < 150000, "servers from 15 on take filters");
		createTables(database);
		assertThatException()
			.isThrownBy(() -> PostlogListenersIntegrationTests.run(FilteredApplication.class, database,
					"postlog.slot.name=old_slot", "postlog.publication.name=old_pub",
					"postlog.filters.fl_orders.where=status = 'open'"))
			.satisfies((ex) -> assertThat(cause(ex, ServerVersionException.class)).isNotNull()
				.satisfies((refused) -> assertThat(refused.getMessage())
					.contains("Row filters and column lists (postlog.filters) need PostgreSQL 15 or later")
					.contains("the server is PostgreSQL " + (database.serverVersion() / 10000) + ".")));
	}

	private static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		return null;
	}

	private static void createTables(PostgresDatabase database) {
		database.execute("DROP TABLE IF EXISTS fl_orders, fl_customers",
				"CREATE TABLE fl_orders (id int PRIMARY KEY, status text NOT NULL, amount int NOT NULL)",
				"ALTER TABLE fl_orders REPLICA IDENTITY FULL",
				"CREATE TABLE fl_customers (id int PRIMARY KEY, name text, email text)");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class FilteredApplication {

		@Bean
		Listeners listeners() {
			return new Listeners();
		}

	}

	static class Listeners {

		static final List<Row> orders = new CopyOnWriteArrayList<>();

		static final List<Row> customers = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "fl_orders")
		void onOrder(Row row) {
			orders.add(row);
		}

		@PgChangeListener(tables = "fl_customers", group = "audit")
		void onCustomer(Row row) {
			customers.add(row);
		}

	}

}
