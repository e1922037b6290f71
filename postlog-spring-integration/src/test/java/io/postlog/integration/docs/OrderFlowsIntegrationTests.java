package io.postlog.integration.docs;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Lsn;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The flow {@code docs/spring-integration.md} shows ({@link OrderFlows}) in a Boot
 * application on a real server: its index gets each order's newest version, and no
 * deleted row is put.
 */
@PostgresTest
class OrderFlowsIntegrationTests {

	@Test
	void docsFlowPutsEachOrdersNewestVersionIntoTheIndex(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE orders (id int PRIMARY KEY, total int NOT NULL)");
		MapIndex index = new MapIndex();
		SpringApplication application = new SpringApplication(FlowApplication.class);
		application.addInitializers((context) -> context.getBeanFactory().registerSingleton("index", index));
		try (ConfigurableApplicationContext context = application.run("--spring.datasource.url=" + database.jdbcUrl(),
				"--spring.datasource.username=" + database.username(), "--spring.main.banner-mode=off",
				"--postlog.slot.name=si_docs", "--postlog.publication.name=si_docs")) {
			database.execute("INSERT INTO orders VALUES (1, 10), (2, 20), (3, 30)",
					"UPDATE orders SET total = 11 WHERE id = 1", "UPDATE orders SET total = 12 WHERE id = 1",
					"DELETE FROM orders WHERE id = 2");
			await().atMost(Duration.ofSeconds(60)).until(() -> index.puts.size() == 5);
		}
		assertThat(index.documents).containsOnlyKeys(1, 2, 3);
		assertThat(index.documents.get(1)).isEqualTo(Map.of("id", 1, "total", 12));
		assertThat(index.documents.get(2)).isEqualTo(Map.of("id", 2, "total", 20));
		assertThat(index.documents.get(3)).isEqualTo(Map.of("id", 3, "total", 30));
		assertThat(index.puts).containsExactly(1, 2, 3, 1, 1);
	}

	/** A search index in a map, keeping the newest version of each document. */
	static final class MapIndex implements SearchIndex {

		final Map<Object, Map<String, Object>> documents = new ConcurrentHashMap<>();

		final Map<Object, Lsn> versions = new ConcurrentHashMap<>();

		final List<Object> puts = new CopyOnWriteArrayList<>();

		@Override
		public void put(Object id, Map<String, Object> document, Lsn version) {
			Lsn known = this.versions.get(id);
			if (known == null || !version.isBefore(known)) {
				this.versions.put(id, version);
				this.documents.put(id, document);
			}
			this.puts.add(id);
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(OrderFlows.class)
	static class FlowApplication {

	}

}
