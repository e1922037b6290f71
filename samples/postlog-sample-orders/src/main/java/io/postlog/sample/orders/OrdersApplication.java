package io.postlog.sample.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The orders sample: orders written over REST and by a background writer, and a read
 * model of per-customer totals that postlog listeners keep up to date. Run it with no
 * {@code spring.datasource.url} and it brings its own PostgreSQL.
 */
@SpringBootApplication
@EnableScheduling
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
