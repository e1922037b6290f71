package io.postlog.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.postlog.Change;
import io.postlog.SchemaChange;
import io.postlog.SchemaChange.Kind;
import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Schema changes are delivered at least once, like rows: a transaction the stream sends
 * again after a listener failure (its subscription stopped and started again, which
 * streams again from the held position) yields its schema change again, with the same
 * kind, shapes and commit LSN, before the first row in the new shape.
 */
@PostgresTest
@Tag("matrix")
class SchemaChangeReplayIntegrationTests {

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stop() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void aListenerFailingOnTheFirstRowAfterAnAddColumnReceivesTheSchemaChangeAgainBeforeThatRow(
			PostgresDatabase database) throws Exception {
		List<Object> seen = replayAfterAFailure(database, "replay_row", false);
		List<SchemaChange> schemaChanges = SchemaChangeIntegrationTests.schemaChanges(seen);
		assertThat(schemaChanges).hasSize(2);
		assertThat(schemaChanges.get(1)).isEqualTo(schemaChanges.get(0));
		assertTheRowFollowsTheSchemaChange(seen, schemaChanges.get(1));
	}

	@Test
	void aSchemaHandlerFailingOnAnAddColumnReceivesItAgainBeforeTheRowInTheNewShape(PostgresDatabase database)
			throws Exception {
		List<Object> seen = replayAfterAFailure(database, "replay_schema", true);
		List<SchemaChange> schemaChanges = SchemaChangeIntegrationTests.schemaChanges(seen);
		assertThat(schemaChanges).hasSize(1);
		assertTheRowFollowsTheSchemaChange(seen, schemaChanges.get(0));
	}

	/**
	 * Streams row 1, adds a column, writes row 2 in the new shape; the handler fails (on
	 * row 2, or on the schema change) until its retries run out, which stops the
	 * subscription; started again, it gets the transaction again.
	 * @return what the subscription handled without failing, in order
	 */
	private List<Object> replayAfterAFailure(PostgresDatabase database, String slot, boolean failSchemaChange)
			throws Exception {
		database.execute("DROP TABLE IF EXISTS " + slot, "CREATE TABLE " + slot + " (id int PRIMARY KEY, a text)");
		List<Object> seen = new CopyOnWriteArrayList<>();
		AtomicBoolean failing = new AtomicBoolean(true);
		AtomicInteger failures = new AtomicInteger();
		ChangeHandler changes = (change) -> {
			if (!failSchemaChange && failing.get() && change.after().get("id", Integer.class) == 2) {
				failures.incrementAndGet();
				throw new IllegalStateException("cannot handle row 2 yet");
			}
			seen.add(change);
		};
		SchemaHandler schemas = (change) -> {
			if (failSchemaChange && failing.get()) {
				failures.incrementAndGet();
				throw new IllegalStateException("cannot handle the schema change yet");
			}
			seen.add(change);
		};
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName(slot)
			.slotLifecycle(SlotLifecycle.CREATE_IF_MISSING)
			.publicationName(slot + "_pub")
			.tables(List.of(new TableId("public", slot)))
			.statusInterval(Duration.ofSeconds(1))
			.stopTimeout(Duration.ofSeconds(10))
			.retryPolicy(new RetryPolicy(Duration.ofMillis(20), 2, Duration.ofMillis(50), 2))
			.subscribe(Subscription.onChange("recorder", changes).withSchemaHandler(schemas))
			.build();
		this.consumers.add(consumer);
		consumer.start();
		database.execute("INSERT INTO " + slot + " VALUES (1, 'one')");
		await().atMost(Duration.ofSeconds(30)).until(() -> SchemaChangeIntegrationTests.changes(seen) == 1);
		await().atMost(Duration.ofSeconds(30)).until(() -> consumer.ackedLsn().isValid());
		database.execute("ALTER TABLE " + slot + " ADD COLUMN b int DEFAULT 0");
		database.execute("INSERT INTO " + slot + " VALUES (2, 'two', 7)");
		await().atMost(Duration.ofSeconds(30))
			.until(() -> consumer.subscription("recorder").state() == SubscriptionState.STOPPED);
		assertThat(failures.get()).isEqualTo(2);
		assertThat(SchemaChangeIntegrationTests.changes(seen)).isEqualTo(1);
		failing.set(false);
		consumer.subscription("recorder").start();
		await().atMost(Duration.ofSeconds(30)).until(() -> SchemaChangeIntegrationTests.changes(seen) == 2);
		return seen;
	}

	private static void assertTheRowFollowsTheSchemaChange(List<Object> seen, SchemaChange schemaChange) {
		assertThat(schemaChange.kind()).isEqualTo(Kind.ADD_COLUMN);
		assertThat(schemaChange.after().columns()).extracting("name").containsExactly("id", "a", "b");
		assertThat(seen.get(seen.size() - 2)).isEqualTo(schemaChange);
		Change row = (Change) seen.get(seen.size() - 1);
		assertThat(row.after().get("id", Integer.class)).isEqualTo(2);
		assertThat(row.after().columns()).containsExactly("id", "a", "b");
		assertThat(row.commitLsn()).isEqualTo(schemaChange.commitLsn());
	}

}
