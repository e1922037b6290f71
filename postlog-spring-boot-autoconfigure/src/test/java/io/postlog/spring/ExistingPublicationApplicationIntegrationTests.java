package io.postlog.spring;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Row;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application reading an insert-only table without a key, published by a
 * {@code FOR ALL TABLES} publication it does not manage: it starts, warns naming the
 * table, and receives the inserts. A class of its own: the publication makes PostgreSQL
 * refuse UPDATE and DELETE on every keyless table of the database.
 */
@PostgresTest
@ExtendWith(OutputCaptureExtension.class)
class ExistingPublicationApplicationIntegrationTests {

	@Test
	void keylessTableOfAnExistingPublicationWarnsAndStreams(PostgresDatabase database, CapturedOutput output) {
		database.execute("CREATE TABLE page_views (viewed_at timestamptz NOT NULL DEFAULT now(), path text)",
				"CREATE PUBLICATION all_pub FOR ALL TABLES");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(ViewsApplication.class,
				database, "postlog.slot.name=all_slot", "postlog.publication.name=all_pub",
				"postlog.publication.mode=existing")) {
			database.execute("INSERT INTO page_views (path) VALUES ('/a'), ('/b')");
			await().atMost(Duration.ofSeconds(30)).until(() -> Views.received.size() == 2);
			assertThat(Views.received).extracting((row) -> row.get("path")).containsExactly("/a", "/b");
		}
		assertThat(Arrays.stream(output.getAll().split("\\R"))
			.filter((line) -> line.contains("WARN") && line.contains("Publication 'all_pub'"))).singleElement()
			.satisfies((line) -> assertThat(line).contains("[public.page_views]"));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ViewsApplication {

		@Bean
		Views views() {
			return new Views();
		}

	}

	static class Views {

		static final List<Row> received = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "page_views")
		void onView(Row row) {
			received.add(row);
		}

	}

}
