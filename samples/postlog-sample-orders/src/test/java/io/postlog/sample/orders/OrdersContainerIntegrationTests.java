package io.postlog.sample.orders;

import java.math.BigDecimal;
import java.time.Duration;

import io.postlog.spring.boot.test.PostlogTestUtils;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/testing.md's copyable test: the application against PostgreSQL in Docker, with
 * {@code @ServiceConnection} giving postlog its connection too. Skipped where Docker is
 * not available.
 */
@SpringBootTest
@Testcontainers(disabledWithoutDocker = true)
class OrdersContainerIntegrationTests {

	@Container
	@ServiceConnection
	static PostgreSQLContainer postgres = new PostgreSQLContainer("postgres:17-alpine").withCommand("postgres", "-c",
			"wal_level=logical");

	@Autowired
	ApplicationContext context;

	@Autowired
	JdbcClient jdbc;

	@Test
	void anInsertedOrderReachesTheReadModel() {
		this.jdbc.sql("INSERT INTO orders (customer, amount) VALUES ('ada', 12.50)").update();
		PostlogTestUtils.awaitCaughtUp(this.context, Duration.ofSeconds(30));
		BigDecimal total = this.jdbc.sql("SELECT total FROM customer_totals WHERE customer = 'ada'")
			.query(BigDecimal.class)
			.single();
		assertThat(total).isEqualByComparingTo("12.50");
	}

}
