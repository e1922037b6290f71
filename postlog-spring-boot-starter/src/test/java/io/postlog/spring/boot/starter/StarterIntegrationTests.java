package io.postlog.spring.boot.starter;

import javax.sql.DataSource;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter alone brings what an application needs to reach PostgreSQL.
 */
@PostgresTest
class StarterIntegrationTests {

	@Test
	void applicationWithOnlyTheStarterConnectsToPostgres(PostgresDatabase database) {
		SpringApplication application = new SpringApplication(StarterApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		try (ConfigurableApplicationContext context = application.run("--spring.datasource.url=" + database.jdbcUrl(),
				"--spring.datasource.username=" + database.username())) {
			assertThat(context.getBean(DataSource.class)).isNotNull();
			String driver = context.getBean(JdbcTemplate.class)
				.execute((java.sql.Connection connection) -> connection.getMetaData().getDriverName());
			assertThat(driver).isEqualTo("PostgreSQL JDBC Driver");
		}
	}

	@SpringBootApplication
	static class StarterApplication {

	}

}
