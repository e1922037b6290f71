package io.postlog.sample.orders;

import java.math.BigDecimal;
import java.time.Duration;

import io.postlog.spring.boot.test.PostlogTestUtils;
import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/testing.md's copyable test without Docker: the application against an embedded
 * PostgreSQL from postlog-test-support, its connection given by
 * {@code @DynamicPropertySource}.
 */
@SpringBootTest
class OrdersEmbeddedIntegrationTests {

	// One server per test JVM (wal_level=logical), stopped when the JVM exits; a database
	// of its own per class.
	static final PostgresDatabase database = EmbeddedPostgresServer.shared().createDatabase();

	@DynamicPropertySource
	static void postgres(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", database::jdbcUrl);
		registry.add("spring.datasource.username", database::username);
	}

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
