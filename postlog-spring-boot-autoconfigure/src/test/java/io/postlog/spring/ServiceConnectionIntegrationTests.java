package io.postlog.spring;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Row;

import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The path most users take: a Testcontainers PostgreSQL with {@code @ServiceConnection};
 * the replication connection comes from the same connection details. Skipped without
 * Docker.
 */
@Testcontainers(disabledWithoutDocker = true)
@SpringBootTest(properties = "postlog.tables=orders")
class ServiceConnectionIntegrationTests {

	@Container
	@ServiceConnection
	static PostgreSQLContainer postgres = new PostgreSQLContainer("postgres:17-alpine").withCommand("postgres", "-c",
			"wal_level=logical");

	;

	@Autowired
	ApplicationContext context;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	Orders orders;

	@Test
	void listenerReceivesRowsOverServiceConnection() {
		this.jdbc.execute("INSERT INTO orders VALUES (1, 'ada')");
		CaughtUp.await(this.context, Duration.ofSeconds(30));
		assertThat(this.orders.rows).extracting((row) -> row.get("customer")).containsExactly("ada");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		Orders orders(JdbcTemplate jdbc) {
			jdbc.execute("CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY, customer text)");
			return new Orders();
		}

	}

	static class Orders {

		final List<Row> rows = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "orders")
		void onOrder(Row row) {
			this.rows.add(row);
		}

	}

}
