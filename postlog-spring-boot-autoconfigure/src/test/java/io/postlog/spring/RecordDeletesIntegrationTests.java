package io.postlog.spring;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Operation;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a record listener gets for a {@code DELETE} under each replica identity, as the
 * docs/listeners.md states it, on a real server.
 */
@PostgresTest
class RecordDeletesIntegrationTests {

	@Test
	void deleteGivesTheKeyColumnsUnderDefaultAndIndexIdentityAndTheWholeRowUnderFull(PostgresDatabase database) {
		database.execute("CREATE TABLE by_key (id int PRIMARY KEY, code text NOT NULL, name text)",
				"CREATE TABLE by_full (id int PRIMARY KEY, code text NOT NULL, name text)",
				"ALTER TABLE by_full REPLICA IDENTITY FULL",
				"CREATE TABLE by_index (id int NOT NULL, code text NOT NULL, name text)",
				"CREATE UNIQUE INDEX by_index_code ON by_index (code)",
				"ALTER TABLE by_index REPLICA IDENTITY USING INDEX by_index_code");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(ItemsApplication.class,
				database, "postlog.slot.name=deletes", "postlog.publication.name=deletes")) {
			for (String table : List.of("by_key", "by_full", "by_index")) {
				database.execute("INSERT INTO " + table + " VALUES (1, 'c1', 'one')", "DELETE FROM " + table);
			}
			CaughtUp.await(context, Duration.ofSeconds(30));
		}
		assertThat(Items.received).containsExactly(new Received("INSERT", new Item(1, "c1", "one")),
				new Received("DELETE", new Item(1, null, null)), new Received("INSERT", new Item(1, "c1", "one")),
				new Received("DELETE", new Item(1, "c1", "one")), new Received("INSERT", new Item(1, "c1", "one")),
				new Received("DELETE", new Item(null, "c1", null)));
	}

	record Item(Integer id, String code, String name) {
	}

	record Received(String operation, Item item) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ItemsApplication {

		@Bean
		Items items() {
			return new Items();
		}

	}

	static class Items {

		static final List<Received> received = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = { "by_key", "by_full", "by_index" })
		void onItem(Item item, Operation operation) {
			received.add(new Received(operation.name(), item));
		}

	}

}
