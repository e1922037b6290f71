package io.postlog.sample.orders;

import java.math.BigDecimal;
import java.util.List;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * The read model: per-customer order counts and totals in {@code customer_totals}.
 */
@Component
class CustomerTotals {

	private final JdbcClient jdbc;

	CustomerTotals(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	@Transactional
	void add(Order order) {
		// Insert the order's id into a ledger first: a redelivered change finds it there
		// and
		// adds nothing, which makes this listener safe under at-least-once delivery.
		int fresh = this.jdbc.sql("INSERT INTO counted_orders (id) VALUES (?) ON CONFLICT DO NOTHING")
			.param(order.id())
			.update();
		if (fresh == 0) {
			return;
		}
		this.jdbc.sql("""
				INSERT INTO customer_totals (customer, order_count, total) VALUES (?, 1, ?)
				ON CONFLICT (customer) DO UPDATE
				SET order_count = customer_totals.order_count + 1, total = customer_totals.total + excluded.total
				""").param(order.customer()).param(order.amount()).update();
	}

	List<CustomerTotal> all() {
		return this.jdbc.sql("SELECT customer, order_count, total FROM customer_totals ORDER BY customer")
			.query(CustomerTotal.class)
			.list();
	}

	/**
	 * One customer's totals.
	 *
	 * @param customer the customer
	 * @param orderCount how many orders
	 * @param total their sum
	 */
	record CustomerTotal(String customer, long orderCount, BigDecimal total) {

	}

}
