package io.postlog.sample.orders;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * With {@code sample.writer.enabled=true}, writes a random order at
 * {@code sample.writer.interval} and now and then ships an old one, so there is always
 * something to watch. Off by default, so the README's walkthrough shows only the orders
 * you post.
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.writer.enabled")
class BackgroundWriter {

	private static final List<String> CUSTOMERS = List.of("ada", "grace", "linus", "barbara");

	private final JdbcClient jdbc;

	BackgroundWriter(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	@Scheduled(fixedDelayString = "${sample.writer.interval}")
	void write() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		String customer = CUSTOMERS.get(random.nextInt(CUSTOMERS.size()));
		BigDecimal amount = BigDecimal.valueOf(random.nextDouble(5, 200)).setScale(2, RoundingMode.HALF_UP);
		this.jdbc.sql("INSERT INTO orders (customer, amount) VALUES (?, ?)").param(customer).param(amount).update();
		if (random.nextInt(3) == 0) {
			this.jdbc.sql(
					"UPDATE orders SET status = 'SHIPPED' WHERE id = (SELECT min(id) FROM orders WHERE status = 'NEW')")
				.update();
		}
	}

}
