package io.postlog.sample.orders;

import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class OrdersApplicationIntegrationTests {

	@Test
	void startsOnItsOwnEmbeddedPostgresWithLogicalDecoding() {
		var application = OrdersApplication.application();
		application.setWebApplicationType(WebApplicationType.NONE);
		try (ConfigurableApplicationContext context = application.run()) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			assertThat(jdbc.queryForObject("SHOW wal_level", String.class)).isEqualTo("logical");
			assertThat(context.getEnvironment().getProperty("spring.datasource.url"))
				.startsWith("jdbc:postgresql://127.0.0.1:");
		}
	}

}
