package io.postlog.spring.boot.autoconfigure;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.postlog.Change;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotInfo;
import io.postlog.spring.PgChangeListener;
import io.postlog.spring.boot.health.PostlogHealthContributor;
import io.postlog.spring.boot.health.PostlogHealthIndicator;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * {@code postlog.slot.failover=true} creates the slot with failover on 17+ (and health
 * says whether the server is set up for it), and fails start-up before 17 naming the
 * version.
 */
@PostgresTest
@ExtendWith(OutputCaptureExtension.class)
class FailoverSlotPropertyIntegrationTests {

	@Test
	void failoverCreatesAFailoverSlotOrIsRefusedNamingTheVersion(PostgresDatabase database, CapturedOutput output)
			throws Exception {
		database.execute("CREATE TABLE orders (id int PRIMARY KEY)");
		SpringApplication application = new SpringApplication(FailoverApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		List<String> args = new ArrayList<>(
				List.of("--spring.datasource.url=" + database.jdbcUrl(), "--spring.datasource.username=postgres",
						"--spring.main.banner-mode=off", "--postlog.slot.name=failover_slot",
						"--postlog.slot.failover=true", "--management.endpoint.health.show-details=always"));
		if (database.serverVersion() < 170000) {
			assertThatException().isThrownBy(() -> application.run(args.toArray(String[]::new)).close());
			assertThat(output).contains("APPLICATION FAILED TO START",
					"Failover slots need PostgreSQL 17 or later; the server is PostgreSQL",
					"postlog.slot.failover=false");
			return;
		}
		try (ConfigurableApplicationContext context = application.run(args.toArray(String[]::new));
				Connection connection = database.connect()) {
			SlotInfo slot = new ReplicationAdmin(connection).slot("failover_slot").orElseThrow();
			assertThat(slot.failover()).isTrue();
			assertThat(new ReplicationAdmin(connection).publicationTables("postlog")).extracting(Object::toString)
				.containsExactly("public.orders");
			PostlogHealthIndicator indicator = (PostlogHealthIndicator) context.getBean(PostlogHealthContributor.class)
				.getContributor("default");
			// Health reads the background poller's reading, taken anew within a second.
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(indicator.health(true).getDetails().get("failover"))
					.hasToString("{enabled=true, synchronizedStandbySlots=, " + "ready=false}"));
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class FailoverApplication {

		@Bean
		Orders orders() {
			return new Orders();
		}

	}

	static class Orders {

		@PgChangeListener(tables = "orders")
		void onOrder(Change change) {
		}

	}

}
