package io.postlog.consumer;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.SchemaChange;
import io.postlog.SchemaChange.Kind;
import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.schema.DdlEvents;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.postlog.consumer.ReplicationConsumerIntegrationTests.query;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Schema changes across a process restart: with {@link JdbcCheckpointStore} the tables'
 * shapes are kept with the checkpoint, so a column added while no consumer ran (after a
 * clean stop, or after a kill of a child JVM), on a table no row of which streamed since,
 * is announced before the first row in the new shape by the next process, with Relation
 * messages or DDL events (14+). With the slot store (nowhere to keep them) and Relation
 * messages the first shape after the restart is the starting shape, as documented; with
 * DDL events the DDL's message carries the shape before it, so the change is announced
 * with any store.
 */
@PostgresTest
@Tag("matrix")
class SchemaChangeRestartIntegrationTests {

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stop() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	/**
	 * The tests share the class's database: postlog's event triggers, installed by the
	 * ddl-events tests, are removed so that the other tests see Relation messages only.
	 */
	@AfterEach
	void removeEventTriggers(PostgresDatabase database) throws Exception {
		try (Connection connection = database.connect()) {
			DdlEvents.remove(connection);
		}
	}

	@Test
	void withTheJdbcStoreAColumnAddedWhileStoppedIsAnnouncedBeforeTheFirstRowAfterARestart(PostgresDatabase database)
			throws Exception {
		String slot = "restart_jdbc";
		List<Object> seen = addAColumnWhileStopped(database, slot, true, false);
		List<SchemaChange> schemaChanges = SchemaChangeIntegrationTests.schemaChanges(seen);
		assertThat(schemaChanges).hasSize(1);
		SchemaChange added = schemaChanges.get(0);
		assertThat(added.kind()).isEqualTo(Kind.ADD_COLUMN);
		assertThat(added.before().columns()).extracting("name").containsExactly("id", "a");
		assertThat(added.after().columns()).extracting("name").containsExactly("id", "a", "b");
		assertThat(added.after().columns().get(0).key()).isTrue();
		assertThat(added.after().columns().get(0).nullable()).isFalse();
		assertThat(seen.get(seen.size() - 2)).isEqualTo(added);
		Change row = (Change) seen.get(seen.size() - 1);
		assertThat(row.after().columns()).containsExactly("id", "a", "b");
		assertThat(row.commitLsn()).isEqualTo(added.commitLsn());
		// One row for the table, its shape as of the checkpoint, and no row value in it.
		String kept = query(database, "SELECT string_agg(shape, ',') FROM postlog_checkpoint_shapes"
				+ " WHERE slot_name = '" + slot + "' AND relation_id = '" + slot + "'::regclass::oid");
		assertThat(kept).contains("1:b").doesNotContain("secret");
		assertThat(query(database, "SELECT count(*) FROM postlog_checkpoint_shapes WHERE slot_name = '" + slot + "'"))
			.isEqualTo("1");
	}

	@Test
	void afterAKillAColumnAddedIsAnnouncedOnceBeforeTheRowAgainstTheShapeKeptWithTheCheckpoint(
			PostgresDatabase database, @TempDir Path directory) throws Exception {
		String slot = "restart_kill";
		database.execute("DROP TABLE IF EXISTS " + slot, "CREATE TABLE " + slot + " (id int PRIMARY KEY, a text)");
		Lsn second;
		try (ChildJvm child = ChildJvm.of(SchemaRestartChild.class)
			.args(database.jdbcUrl(), database.username(), slot, slot)
			.start(directory.resolve("child.log"))) {
			child.awaitLine("started", Duration.ofSeconds(120));
			database.execute("INSERT INTO " + slot + " VALUES (1, 'one')");
			child.awaitLine("change 1 ", Duration.ofSeconds(60));
			database.execute("ALTER TABLE " + slot + " ADD COLUMN b int");
			database.execute("INSERT INTO " + slot + " VALUES (2, 'two', 2)");
			child.awaitLine("schema ADD_COLUMN", Duration.ofSeconds(60));
			second = Lsn.parse(child.awaitLine("change 2 ", Duration.ofSeconds(60)).split(" ")[2]);
			// Before 15 the checkpoint's own writes come back as empty transactions and
			// move it further.
			await().atMost(Duration.ofSeconds(60)).until(() -> {
				String checkpoint = query(database,
						"SELECT commit_lsn::text FROM postlog_checkpoint WHERE slot_name = '" + slot + "'");
				return checkpoint != null && !Lsn.parse(checkpoint).isBefore(second);
			});
			child.kill();
		}
		database.execute("ALTER TABLE " + slot + " ADD COLUMN c text");
		database.execute("INSERT INTO " + slot + " VALUES (3, 'three', 3, 'c')");

		List<Object> seen = new CopyOnWriteArrayList<>();
		consumer(database, slot, true, false, seen).start();
		await().atMost(Duration.ofSeconds(60)).until(() -> SchemaChangeIntegrationTests.changes(seen) == 1);
		// Had the slot not heard of rows 1 and 2 before the kill, they and their shapes
		// come again and are skipped as checkpointed.
		assertThat(seen).hasSize(2);
		SchemaChange added = (SchemaChange) seen.get(0);
		assertThat(added.kind()).isEqualTo(Kind.ADD_COLUMN);
		assertThat(added.before().columns()).extracting("name").containsExactly("id", "a", "b");
		assertThat(added.after().columns()).extracting("name").containsExactly("id", "a", "b", "c");
		Change row = (Change) seen.get(1);
		assertThat(row.after().get("id", Integer.class)).isEqualTo(3);
		assertThat(row.commitLsn()).isEqualTo(added.commitLsn());
	}

	@Test
	void withTheJdbcStoreAndDdlEventsTheDdlsMessageAfterARestartIsComparedWithTheKeptShape(PostgresDatabase database)
			throws Exception {
		Assumptions.assumeTrue(database.serverVersion() >= 140000, "ddl-events need PostgreSQL 14");
		List<Object> seen = addAColumnWhileStopped(database, "restart_ddl_jdbc", true, true);
		List<SchemaChange> schemaChanges = SchemaChangeIntegrationTests.schemaChanges(seen);
		assertThat(schemaChanges).extracting(SchemaChange::kind).containsExactly(Kind.ADD_COLUMN);
		assertThat(schemaChanges.get(0).after().columns()).extracting("name").containsExactly("id", "a", "b");
		assertThat(seen.indexOf(schemaChanges.get(0))).isLessThan(seen.size() - 1);
	}

	@Test
	void withTheSlotStoreAndDdlEventsTheDdlsMessageAfterARestartCarriesTheShapeBeforeIt(PostgresDatabase database)
			throws Exception {
		Assumptions.assumeTrue(database.serverVersion() >= 140000, "ddl-events need PostgreSQL 14");
		List<Object> seen = addAColumnWhileStopped(database, "restart_ddl_slot", false, true);
		assertAddedBeforeTheRow(seen);
	}

	/**
	 * The trigger functions run as their owner: a role with no right on postlog's objects
	 * (the shapes table) alters the table it owns, and its DDL goes through and is
	 * announced.
	 */
	@Test
	void withDdlEventsARoleWithoutRightsOnPostlogsObjectsAltersItsTable(PostgresDatabase database) throws Exception {
		Assumptions.assumeTrue(database.serverVersion() >= 140000, "ddl-events need PostgreSQL 14");
		database.execute("DO $d$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'postlog_test_owner') "
				+ "THEN CREATE ROLE postlog_test_owner; END IF; END $d$");
		List<Object> seen = addAColumnWhileStopped(database, "restart_ddl_role", false, true, "postlog_test_owner");
		assertAddedBeforeTheRow(seen);
	}

	private static void assertAddedBeforeTheRow(List<Object> seen) {
		List<SchemaChange> schemaChanges = SchemaChangeIntegrationTests.schemaChanges(seen);
		assertThat(schemaChanges).extracting(SchemaChange::kind).containsExactly(Kind.ADD_COLUMN);
		assertThat(schemaChanges.get(0).before().columns()).extracting("name").containsExactly("id", "a");
		assertThat(schemaChanges.get(0).after().columns()).extracting("name").containsExactly("id", "a", "b");
		assertThat(seen.indexOf(schemaChanges.get(0))).isLessThan(seen.size() - 1);
	}

	@Test
	void withTheSlotStoreTheFirstRelationMessageAfterARestartIsTheStartingShape(PostgresDatabase database)
			throws Exception {
		List<Object> seen = addAColumnWhileStopped(database, "restart_slot", false, false);
		assertThat(SchemaChangeIntegrationTests.schemaChanges(seen)).isEmpty();
		Change row = (Change) seen.get(seen.size() - 1);
		assertThat(row.after().columns()).containsExactly("id", "a", "b");
	}

	/**
	 * Streams row 1 into a first consumer, which stops cleanly (everything acknowledged);
	 * adds a column and writes row 2 while none runs; a second consumer of the same slot
	 * receives row 2.
	 * @return what the second consumer's subscription received, in order
	 */
	private List<Object> addAColumnWhileStopped(PostgresDatabase database, String slot, boolean jdbc, boolean ddlEvents)
			throws Exception {
		return addAColumnWhileStopped(database, slot, jdbc, ddlEvents, null);
	}

	/** The same, with the table owned and altered by a role, unless {@code null}. */
	private List<Object> addAColumnWhileStopped(PostgresDatabase database, String slot, boolean jdbc, boolean ddlEvents,
			@Nullable String owner) throws Exception {
		database.execute("DROP TABLE IF EXISTS " + slot, "CREATE TABLE " + slot + " (id int PRIMARY KEY, a text)");
		if (owner != null) {
			database.execute("ALTER TABLE " + slot + " OWNER TO " + owner);
		}
		List<Object> first = new CopyOnWriteArrayList<>();
		ReplicationConsumer before = consumer(database, slot, jdbc, ddlEvents, first);
		before.start();
		database.execute("INSERT INTO " + slot + " VALUES (1, 'secret one')");
		await().atMost(Duration.ofSeconds(60)).until(() -> SchemaChangeIntegrationTests.changes(first) == 1);
		Lsn delivered = ((Change) first.get(0)).commitLsn();
		await().atMost(Duration.ofSeconds(60)).until(() -> !before.ackedLsn().isBefore(delivered));
		before.stop();
		assertThat(SchemaChangeIntegrationTests.schemaChanges(first)).isEmpty();

		if (owner != null) {
			database.execute("SET ROLE " + owner, "ALTER TABLE " + slot + " ADD COLUMN b int", "RESET ROLE");
		}
		else {
			database.execute("ALTER TABLE " + slot + " ADD COLUMN b int");
		}
		database.execute("INSERT INTO " + slot + " VALUES (2, 'secret two', 7)");

		List<Object> second = new CopyOnWriteArrayList<>();
		ReplicationConsumer after = consumer(database, slot, jdbc, ddlEvents, second);
		after.start();
		await().atMost(Duration.ofSeconds(60)).until(() -> SchemaChangeIntegrationTests.changes(second) == 1);
		Change row = (Change) second.get(second.size() - 1);
		assertThat(row.after().get("id", Integer.class)).isEqualTo(2);
		return second;
	}

	private ReplicationConsumer consumer(PostgresDatabase database, String slot, boolean jdbc, boolean ddlEvents,
			List<Object> seen) {
		ReplicationConsumer.Builder builder = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName(slot)
			.slotLifecycle(SlotLifecycle.CREATE_IF_MISSING)
			.publicationName(slot + "_pub")
			.tables(List.of(new TableId("public", slot)))
			.statusInterval(Duration.ofSeconds(1))
			.stopTimeout(Duration.ofSeconds(10))
			.subscribe(Subscription.onChange("recorder", (ChangeHandler) seen::add).withSchemaHandler((change) -> {
				// With DDL events every table created in the database is announced, the
				// checkpoint store's own included.
				if (change.table().name().equals(slot)) {
					seen.add(change);
				}
			}))
			.schemaDdlEvents(ddlEvents);
		if (jdbc) {
			builder.checkpointStore(
					JdbcCheckpointStore.of(JdbcCheckpointStoreIntegrationTests.dataSource(database), slot));
		}
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		return consumer;
	}

}
