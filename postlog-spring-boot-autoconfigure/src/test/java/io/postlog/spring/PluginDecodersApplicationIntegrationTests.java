package io.postlog.spring;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.test.PluginLaneTest;
import io.postlog.test.PostgresDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * {@code postlog.decoder=wal2json} and {@code postlog.decoder=pglogical} in an
 * application on the plugin lane's server: listeners receive the same changes and records
 * as with pgoutput, with the properties each decoder needs ({@code postlog.wal2json.*},
 * {@code postlog.pglogical.replication-sets}); what they cannot stream fails start-up
 * with postlog's failure analysis, before a slot is made.
 */
@PluginLaneTest
@ExtendWith(OutputCaptureExtension.class)
class PluginDecodersApplicationIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final PostgresDatabase database;

	PluginDecodersApplicationIntegrationTests(PostgresDatabase database) {
		this.database = database;
	}

	@BeforeAll
	static void createSchema(PostgresDatabase database) {
		database.execute("CREATE EXTENSION pglogical",
				"SELECT pglogical.create_node(node_name := 'spring', dsn := 'dbname=" + database.name() + "')",
				"SELECT pglogical.create_replication_set('orders_set')",
				"CREATE TABLE orders (order_id int PRIMARY KEY, customer_name text, total numeric(10,2))",
				"CREATE TABLE other (id int PRIMARY KEY)",
				"SELECT pglogical.replication_set_add_table('orders_set', 'orders')");
	}

	@Test
	void wal2jsonDeliversChangesAndRecordsOnceNumericsWithoutNumbersAsStringsAreAccepted() {
		try (ConfigurableApplicationContext context = run("postlog.decoder=wal2json", "postlog.slot.name=w2j_app",
				"postlog.wal2json.allow-non-finite-as-null=true")) {
			Orders orders = context.getBean(Orders.class);
			changeOrders(1);
			await().atMost(TIMEOUT).until(() -> orders.changes.size() == 3);
			assertDelivered(orders, 1);
		}
	}

	@Test
	void pglogicalDeliversTheTablesOfItsReplicationSets() {
		try (ConfigurableApplicationContext context = run("postlog.decoder=pglogical", "postlog.slot.name=pgl_app",
				"postlog.pglogical.replication-sets=orders_set")) {
			Orders orders = context.getBean(Orders.class);
			changeOrders(2);
			await().atMost(TIMEOUT).until(() -> orders.changes.size() == 3);
			assertDelivered(orders, 2);
		}
	}

	@Test
	void wal2jsonRefusesNumericColumnsUntilTheirNonFiniteValuesMayArriveAsNull(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("postlog.decoder=wal2json", "postlog.slot.name=w2j_numeric"));
		assertThat(output).contains("APPLICATION FAILED TO START",
				"postlog.decoder=wal2json cannot stream as configured",
				"columns [public.orders.total] are float4, float8 or numeric",
				"postlog.wal2json.allow-non-finite-as-null");
		assertThat(slotExists("w2j_numeric")).isFalse();
	}

	@Test
	void pglogicalRefusesAListenerOfATableOutsideItsReplicationSets(CapturedOutput output) {
		assertThatException().isThrownBy(() -> run("postlog.decoder=pglogical", "postlog.slot.name=pgl_other",
				"postlog.pglogical.replication-sets=default"));
		assertThat(output).contains("APPLICATION FAILED TO START",
				"postlog.decoder=pglogical cannot stream as configured",
				"'Orders.onChange', 'Orders.onOrder' reads table public.orders, which pglogical replication sets "
						+ "[default] (add it with pglogical.replication_set_add_table) does not hold");
		assertThat(slotExists("pgl_other")).isFalse();
	}

	private ConfigurableApplicationContext run(String... properties) {
		return PostlogListenersIntegrationTests.run(OrdersApplication.class, this.database, properties);
	}

	private void changeOrders(int id) {
		this.database.execute("INSERT INTO orders VALUES (" + id + ", 'Ada', 12.50)",
				"UPDATE orders SET total = 13.75 WHERE order_id = " + id, "DELETE FROM orders WHERE order_id = " + id);
	}

	private static void assertDelivered(Orders orders, int id) {
		assertThat(orders.changes).extracting(Change::operation)
			.containsExactly(Operation.INSERT, Operation.UPDATE, Operation.DELETE);
		assertThat(orders.records).containsExactly(new Order(id, "Ada", new BigDecimal("12.50")),
				new Order(id, "Ada", new BigDecimal("13.75")));
	}

	private boolean slotExists(String slot) {
		try (java.sql.Connection connection = this.database.connect();
				java.sql.PreparedStatement statement = connection
					.prepareStatement("SELECT 1 FROM pg_replication_slots WHERE slot_name = ?")) {
			statement.setString(1, slot);
			try (java.sql.ResultSet row = statement.executeQuery()) {
				return row.next();
			}
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	record Order(int orderId, String customerName, BigDecimal total) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class OrdersApplication {

		@Bean
		Orders orders() {
			return new Orders();
		}

	}

	static class Orders {

		final List<Change> changes = new CopyOnWriteArrayList<>();

		final List<Order> records = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "orders")
		void onChange(Change change) {
			this.changes.add(change);
		}

		@PgChangeListener(tables = "orders", operations = { Operation.INSERT, Operation.UPDATE })
		void onOrder(Order order) {
			this.records.add(order);
		}

	}

}
