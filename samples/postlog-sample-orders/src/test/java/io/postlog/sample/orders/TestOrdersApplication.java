package io.postlog.sample.orders;

import org.testcontainers.postgresql.PostgreSQLContainer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;

/**
 * Runs the sample against PostgreSQL in a Docker container instead of the embedded
 * server: {@code ./mvnw -pl samples/postlog-sample-orders spring-boot:test-run}. postlog
 * takes the container's connection details from {@code @ServiceConnection}, for the
 * application's DataSource and for its replication connection alike.
 */
public class TestOrdersApplication {

	public static void main(String[] args) {
		SpringApplication.from(OrdersApplication::main).with(ContainerConfiguration.class).run(args);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class ContainerConfiguration {

		@Bean
		@ServiceConnection
		PostgreSQLContainer postgres() {
			return new PostgreSQLContainer("postgres:17-alpine").withCommand("postgres", "-c", "wal_level=logical");
		}

	}

}
