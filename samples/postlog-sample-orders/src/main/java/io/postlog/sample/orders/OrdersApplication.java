package io.postlog.sample.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The orders sample: run it with no {@code spring.datasource.url} and it brings its own
 * PostgreSQL.
 */
@SpringBootApplication
public class OrdersApplication {

	public static void main(String[] args) {
		application().run(args);
	}

	static SpringApplication application() {
		SpringApplication application = new SpringApplication(OrdersApplication.class);
		application.addListeners(new EmbeddedPostgresListener());
		return application;
	}

}
