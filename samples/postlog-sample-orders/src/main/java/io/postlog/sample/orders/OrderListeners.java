package io.postlog.sample.orders;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.Transaction;
import io.postlog.spring.PgChangeListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * The listeners that keep the read model up to date. They run on postlog's delivery
 * thread, one at a time, in commit order.
 */
@Component
class OrderListeners {

	private static final Logger logger = LoggerFactory.getLogger(OrderListeners.class);

	private final CustomerTotals totals;

	OrderListeners(CustomerTotals totals) {
		this.totals = totals;
	}

	/**
	 * A record-typed listener: each new order adds to its customer's totals. The update
	 * is idempotent per order id, so a redelivered change does not count twice.
	 * @param order the inserted order
	 */
	@PgChangeListener(tables = "orders", operations = Operation.INSERT)
	void onNewOrder(Order order) {
		this.totals.add(order);
	}

	/**
	 * One readable line per change.
	 * @param change the change
	 */
	@PgChangeListener(tables = "orders")
	void log(Change change) {
		Object id = (change.row() != null) ? change.row().get("id") : null;
		logger.info("{} {} id={} at {}", change.operation(), change.table(), id, change.commitLsn());
	}

	/**
	 * A transaction listener: called once per commit that touched {@code orders}.
	 * @param transaction the transaction with its matching changes
	 */
	@PgChangeListener(tables = "orders")
	void onCommit(Transaction transaction) {
		logger.info("transaction {} committed {} order change(s) at {}", transaction.xid(),
				transaction.changes().size(), transaction.commitTime());
	}

}
