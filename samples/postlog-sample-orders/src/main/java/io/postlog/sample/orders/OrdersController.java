package io.postlog.sample.orders;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Writes orders and serves the read model postlog keeps up to date.
 */
@RestController
class OrdersController {

	private final JdbcClient jdbc;

	private final CustomerTotals totals;

	OrdersController(JdbcClient jdbc, CustomerTotals totals) {
		this.jdbc = jdbc;
		this.totals = totals;
	}

	@PostMapping("/orders")
	@ResponseStatus(HttpStatus.CREATED)
	Map<String, Object> create(@RequestBody NewOrder order) {
		long id = this.jdbc.sql("INSERT INTO orders (customer, amount) VALUES (?, ?) RETURNING id")
			.param(order.customer())
			.param(order.amount())
			.query(Long.class)
			.single();
		return Map.of("id", id);
	}

	@GetMapping("/stats")
	List<CustomerTotals.CustomerTotal> stats() {
		return this.totals.all();
	}

	record NewOrder(String customer, BigDecimal amount) {

	}

}
