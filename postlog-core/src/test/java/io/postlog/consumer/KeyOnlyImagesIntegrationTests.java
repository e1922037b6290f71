package io.postlog.consumer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A real {@code DELETE}: its {@code change.row()} is a key-only image unless the table
 * has {@code REPLICA IDENTITY FULL}; {@link Row#find(String)} reads a column that may be
 * left out, and {@link Row#get(String)} explains why it is.
 */
@PostgresTest
class KeyOnlyImagesIntegrationTests {

	@Test
	void deleteRowHoldsOnlyTheKeyUnlessReplicaIdentityIsFull(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE people (id int PRIMARY KEY, name text)",
				"CREATE TABLE people_full (id int PRIMARY KEY, name text)",
				"ALTER TABLE people_full REPLICA IDENTITY FULL");
		Map<String, Change> deletes = new ConcurrentHashMap<>();
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName("key_only_slot")
			.slotLifecycle(SlotLifecycle.CREATE_IF_MISSING)
			.publicationName("key_only_pub")
			.tables(List.of(new TableId("public", "people"), new TableId("public", "people_full")))
			.changeHandler((change) -> {
				if (change.operation() == Operation.DELETE) {
					deletes.put(change.table().name(), change);
				}
			})
			.build();
		consumer.start();
		try {
			await().until(() -> consumer.state() == ConsumerState.RUNNING);
			database.execute("INSERT INTO people VALUES (1, 'ada')", "INSERT INTO people_full VALUES (1, 'ada')",
					"DELETE FROM people", "DELETE FROM people_full");
			await().atMost(Duration.ofSeconds(30)).until(() -> deletes.size() == 2);
		}
		finally {
			consumer.stop();
		}
		Row keyOnly = deletes.get("people").row();
		assertThat(keyOnly.isKeyOnly()).isTrue();
		assertThat(keyOnly.columns()).containsExactly("id");
		assertThat(keyOnly.find("id")).contains(1);
		assertThat(keyOnly.find("name")).isEmpty();
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> keyOnly.get("name"))
			.withMessageStartingWith("Column 'name' is not in this key-only row image (columns [id]): a DELETE")
			.withMessageContaining("REPLICA IDENTITY FULL");
		Row full = deletes.get("people_full").row();
		assertThat(full.isKeyOnly()).isFalse();
		assertThat(full.find("name")).contains("ada");
		assertThat(full.get("name")).isEqualTo("ada");
	}

}
