package io.postlog.spring;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The footing the auto-configuration stands on: Boot's DataSource and connection details
 * reach the test's embedded server.
 */
@PostgresTest
class EmbeddedServerWithBootIntegrationTests {

	@Test
	void bootDataSourceReachesTheEmbeddedServer(PostgresDatabase database) {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataSourceAutoConfiguration.class, JdbcTemplateAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=" + database.jdbcUrl(),
					"spring.datasource.username=" + database.username())
			.run((context) -> {
				assertThat(context.getBean(JdbcConnectionDetails.class).getJdbcUrl()).isEqualTo(database.jdbcUrl());
				JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
				assertThat(jdbc.queryForObject("SELECT current_database()", String.class)).isEqualTo(database.name());
				assertThat(jdbc.queryForObject("SHOW wal_level", String.class)).isEqualTo("logical");
			});
	}

}
