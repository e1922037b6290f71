package io.postlog.consumer;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.SchemaChange;
import io.postlog.SchemaChange.Kind;
import io.postlog.TableId;
import io.postlog.TableSchema;
import io.postlog.admin.SlotLifecycle;
import io.postlog.schema.DdlEvents;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Snapshots and backfills read a table in the shape it has when they read it: a backfill
 * after columns were added, dropped and renamed while the consumer ran delivers its rows
 * in the new shape, after the schema changes that announce it, once (with DDL events
 * right after the DDL; with Relation messages with the first row streamed in the new
 * shape or, when none was, at the first chunk's high watermark); a fresh initial snapshot
 * of a table whose shape changed before the consumer started delivers the shape it reads
 * and no schema change (tracking starts at the stream's first shape of the table).
 */
@Tag("matrix")
@PostgresTest
class SchemaShapeOfSnapshotsIntegrationTests {

	private static final List<String> NEW_SHAPE = List.of("id", "a2", "c");

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	/**
	 * The tests share the class's database: postlog's event triggers, installed by the
	 * ddl-events test, are removed so that the other tests see Relation messages only.
	 */
	@AfterEach
	void removeEventTriggers(PostgresDatabase database) throws Exception {
		try (Connection connection = database.connect()) {
			DdlEvents.remove(connection);
		}
	}

	@Test
	void aBackfillAfterDdlDeliversTheNewShapeAfterItsSchemaChanges(PostgresDatabase database) {
		backfillAfterDdl(database, "shape_rel", false);
	}

	@Test
	void withDdlEventsABackfillRightAfterDdlDeliversTheNewShapeAfterItsSchemaChanges(PostgresDatabase database) {
		Assumptions.assumeTrue(database.serverVersion() >= 140000, "ddl-events need PostgreSQL 14");
		backfillAfterDdl(database, "shape_ddl", true);
	}

	/**
	 * With Relation messages as the source the schema changes come with the first row
	 * written in the new shape, so one is written before the backfill; with DDL events
	 * they come at the DDL's commit, so the backfill follows the DDL directly.
	 */
	private void backfillAfterDdl(PostgresDatabase database, String table, boolean ddlEvents) {
		database.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, a text, b text)",
				"INSERT INTO " + table + " SELECT g, 'a' || g, 'b' || g FROM generate_series(1, 25) g");
		List<Object> seen = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(builder(database, table, ddlEvents, seen).backfills(10));
		database.execute("INSERT INTO " + table + " VALUES (100, 'a', 'b')");
		await().atMost(Duration.ofSeconds(30)).until(() -> changes(seen).size() == 1);
		database.execute("ALTER TABLE " + table + " ADD COLUMN c text DEFAULT 'c'",
				"ALTER TABLE " + table + " DROP COLUMN b", "ALTER TABLE " + table + " RENAME COLUMN a TO a2");
		if (!ddlEvents) {
			database.execute("INSERT INTO " + table + " VALUES (101, 'a', 'c')");
		}
		Backfill backfill = consumer.backfill(List.of(new TableId("public", table)));
		await().atMost(Duration.ofSeconds(60)).until(() -> backfill.state() == Backfill.State.COMPLETED);
		await().atMost(Duration.ofSeconds(30)).until(() -> snapshotRows(seen).size() == (ddlEvents ? 26 : 27));

		int firstSnapshotRow = seen.indexOf(snapshotRows(seen).get(0));
		List<SchemaChange> announced = new ArrayList<>();
		seen.subList(0, firstSnapshotRow).forEach((event) -> {
			if (event instanceof SchemaChange change) {
				announced.add(change);
			}
		});
		// One diff of Relation messages gives its steps in a fixed order (drops, renames,
		// adds); DDL events give each statement's step at its commit.
		assertThat(announced).extracting(SchemaChange::kind)
			.as("the schema changes before the first backfilled row")
			.containsExactlyElementsOf(ddlEvents ? List.of(Kind.ADD_COLUMN, Kind.DROP_COLUMN, Kind.RENAME_COLUMN)
					: List.of(Kind.DROP_COLUMN, Kind.RENAME_COLUMN, Kind.ADD_COLUMN));
		assertThat(names(announced.get(2).after())).isEqualTo(NEW_SHAPE);
		assertThat(snapshotRows(seen))
			.allSatisfy((row) -> assertThat(List.copyOf(row.after().asMap().keySet())).as("backfilled row")
				.isEqualTo(NEW_SHAPE));
		assertThat(snapshotRows(seen)).filteredOn((row) -> row.after().get("id").equals(1))
			.singleElement()
			.satisfies((row) -> assertThat(row.after().asMap()).containsEntry("a2", "a1").containsEntry("c", "c"));
		assertThat(seen).filteredOn(SchemaChange.class::isInstance).as("no schema change beyond the three").hasSize(3);
	}

	/**
	 * With Relation messages and no row written between the DDL and the backfill, the
	 * stream has not shown the new shape when the backfill's first chunk reaches its high
	 * watermark: the shape the chunk was read in is announced there, in the watermark's
	 * transaction, before the chunk's rows, and the Relation message of the next streamed
	 * row announces nothing again.
	 */
	@Test
	void aBackfillRightAfterDdlAnnouncesTheNewShapeBeforeItsRowsOnce(PostgresDatabase database) {
		String table = "shape_first";
		database.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, a text, b text)",
				"INSERT INTO " + table + " SELECT g, 'a' || g, 'b' || g FROM generate_series(1, 25) g");
		List<Object> seen = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(builder(database, table, false, seen).backfills(10));
		database.execute("INSERT INTO " + table + " VALUES (100, 'a', 'b')");
		await().atMost(Duration.ofSeconds(60)).until(() -> changes(seen).size() == 1);
		database.execute("ALTER TABLE " + table + " ADD COLUMN c text DEFAULT 'c'",
				"ALTER TABLE " + table + " DROP COLUMN b", "ALTER TABLE " + table + " RENAME COLUMN a TO a2");
		Backfill backfill = consumer.backfill(List.of(new TableId("public", table)));
		await().atMost(Duration.ofSeconds(90)).until(() -> backfill.state() == Backfill.State.COMPLETED);
		await().atMost(Duration.ofSeconds(60)).until(() -> snapshotRows(seen).size() == 26);
		database.execute("INSERT INTO " + table + " VALUES (101, 'a', 'c')");
		await().atMost(Duration.ofSeconds(60)).until(() -> changes(seen).size() == 28);

		Change firstRow = snapshotRows(seen).get(0);
		List<SchemaChange> announced = new ArrayList<>();
		seen.subList(0, seen.indexOf(firstRow)).forEach((event) -> {
			if (event instanceof SchemaChange change) {
				announced.add(change);
			}
		});
		assertThat(announced).extracting(SchemaChange::kind)
			.as("the schema changes before the first backfilled row")
			.containsExactly(Kind.DROP_COLUMN, Kind.RENAME_COLUMN, Kind.ADD_COLUMN);
		assertThat(announced).extracting(SchemaChange::commitLsn)
			.as("in the high watermark's transaction, whose commit the chunk's rows carry")
			.containsOnly(firstRow.commitLsn());
		assertThat(names(announced.get(0).before())).isEqualTo(List.of("id", "a", "b"));
		assertThat(announced.get(2).after().columns()).extracting(TableSchema.Column::name, TableSchema.Column::key)
			.containsExactly(tuple("id", true), tuple("a2", false), tuple("c", false));
		assertThat(snapshotRows(seen))
			.allSatisfy((row) -> assertThat(List.copyOf(row.after().asMap().keySet())).as("backfilled row")
				.isEqualTo(NEW_SHAPE));
		Change streamed = changes(seen).get(27);
		assertThat(streamed.after().get("id")).isEqualTo(101);
		assertThat(List.copyOf(streamed.after().asMap().keySet())).isEqualTo(NEW_SHAPE);
		assertThat(seen).filteredOn(SchemaChange.class::isInstance)
			.as("announced once: not again with the streamed row's Relation message")
			.hasSize(3);
	}

	@Test
	void aColumnAddedBetweenTwoChunksOfABackfillIsAnnouncedOnceBeforeTheRowsOfTheChunksReadAfterIt(
			PostgresDatabase database) throws Exception {
		String table = "shape_between";
		database.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, a text)",
				"INSERT INTO " + table + " SELECT g, 'a' || g FROM generate_series(1, 10) g");
		List<Object> seen = new CopyOnWriteArrayList<>();
		CountDownLatch firstChunkArrived = new CountDownLatch(1);
		CountDownLatch altered = new CountDownLatch(1);
		ChangeHandler recorder = (change) -> {
			seen.add(change);
			if (change.operation() == Operation.SNAPSHOT && change.after().get("id", Integer.class) == 1) {
				// The first chunk is being delivered; the runner reads the chunk after
				// the
				// next one only once it settled, so that one is read after the DDL.
				firstChunkArrived.countDown();
				assertThat(altered.await(60, TimeUnit.SECONDS)).isTrue();
			}
		};
		ReplicationConsumer consumer = start(builder(database, table, false, seen, recorder).backfills(2));
		database.execute("INSERT INTO " + table + " VALUES (100, 'a')");
		await().atMost(Duration.ofSeconds(60)).until(() -> changes(seen).size() == 1);
		Backfill backfill = consumer.backfill(List.of(new TableId("public", table)));
		assertThat(firstChunkArrived.await(90, TimeUnit.SECONDS)).isTrue();
		database.execute("ALTER TABLE " + table + " ADD COLUMN b text DEFAULT 'b'");
		altered.countDown();
		await().atMost(Duration.ofSeconds(90)).until(() -> backfill.state() == Backfill.State.COMPLETED);
		await().atMost(Duration.ofSeconds(60)).until(() -> snapshotRows(seen).size() == 11);
		database.execute("INSERT INTO " + table + " VALUES (101, 'a', 'b')");
		await().atMost(Duration.ofSeconds(60)).until(() -> changes(seen).size() == 13);

		assertThat(snapshotRows(seen)).extracting((row) -> row.after().get("id", Integer.class))
			.as("every row backfilled once")
			.containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100);
		assertThat(seen).filteredOn(SchemaChange.class::isInstance)
			.as("announced once: not again with the streamed row's Relation message")
			.hasSize(1);
		SchemaChange added = (SchemaChange) seen.stream().filter(SchemaChange.class::isInstance).findFirst().get();
		assertThat(added.kind()).isEqualTo(Kind.ADD_COLUMN);
		assertThat(names(added.before())).isEqualTo(List.of("id", "a"));
		assertThat(names(added.after())).isEqualTo(List.of("id", "a", "b"));
		int at = seen.indexOf(added);
		List<Change> before = snapshotRows(seen.subList(0, at));
		List<Change> after = snapshotRows(seen.subList(at, seen.size()));
		assertThat(before).as("the first chunk, read before the DDL").isNotEmpty();
		assertThat(before)
			.allSatisfy((row) -> assertThat(List.copyOf(row.after().asMap().keySet())).isEqualTo(List.of("id", "a")));
		assertThat(after).as("the chunks read after the DDL").isNotEmpty();
		assertThat(after).allSatisfy(
				(row) -> assertThat(List.copyOf(row.after().asMap().keySet())).isEqualTo(List.of("id", "a", "b")));
		assertThat(after.get(0).commitLsn()).as("in the high watermark's transaction of the chunk after it")
			.isEqualTo(added.commitLsn());
		assertThat(seen.get(at + 1)).isSameAs(after.get(0));
	}

	@Test
	void aFreshInitialSnapshotReadsTheShapeAtStartAndAnnouncesNoSchemaChange(PostgresDatabase database) {
		String table = "shape_initial";
		database.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, a text, b text)",
				"INSERT INTO " + table + " SELECT g, 'a' || g, 'b' || g FROM generate_series(1, 25) g",
				"ALTER TABLE " + table + " ADD COLUMN c text DEFAULT 'c'", "ALTER TABLE " + table + " DROP COLUMN b",
				"ALTER TABLE " + table + " RENAME COLUMN a TO a2");
		List<Object> seen = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(builder(database, table, false, seen).initialSnapshot(1, 10));
		await().atMost(Duration.ofSeconds(60)).until(() -> consumer.state() == ConsumerState.RUNNING);
		database.execute("INSERT INTO " + table + " VALUES (100, 'a', 'c')");
		await().atMost(Duration.ofSeconds(30)).until(() -> changes(seen).size() == 26);
		assertThat(snapshotRows(seen)).hasSize(25)
			.allSatisfy((row) -> assertThat(List.copyOf(row.after().asMap().keySet())).isEqualTo(NEW_SHAPE));
		assertThat(List.copyOf(changes(seen).get(25).after().asMap().keySet())).isEqualTo(NEW_SHAPE);
		assertThat(seen).noneMatch(SchemaChange.class::isInstance);
	}

	private ReplicationConsumer.Builder builder(PostgresDatabase database, String table, boolean ddlEvents,
			List<Object> seen) {
		return builder(database, table, ddlEvents, seen, seen::add);
	}

	private ReplicationConsumer.Builder builder(PostgresDatabase database, String table, boolean ddlEvents,
			List<Object> seen, ChangeHandler changes) {
		return ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName(table + "_slot")
			.slotLifecycle(SlotLifecycle.CREATE_IF_MISSING)
			.publicationName(table + "_pub")
			.tables(List.of(new TableId("public", table)))
			.statusInterval(Duration.ofSeconds(1))
			.stopTimeout(Duration.ofSeconds(10))
			.subscribe(Subscription.onChange("recorder", changes).withSchemaHandler(seen::add))
			.schemaDdlEvents(ddlEvents);
	}

	private ReplicationConsumer start(ReplicationConsumer.Builder builder) {
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		consumer.start();
		await().atMost(Duration.ofSeconds(60)).until(() -> consumer.state() == ConsumerState.RUNNING);
		return consumer;
	}

	private static List<Change> changes(List<Object> seen) {
		return seen.stream().filter(Change.class::isInstance).map(Change.class::cast).toList();
	}

	private static List<Change> snapshotRows(List<Object> seen) {
		return changes(seen).stream().filter((change) -> change.operation() == Operation.SNAPSHOT).toList();
	}

	private static List<String> names(TableSchema schema) {
		return schema.columns().stream().map(TableSchema.Column::name).toList();
	}

}
