package io.postlog.consumer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.postlog.Change;
import io.postlog.SchemaChange;
import io.postlog.SchemaChange.Kind;
import io.postlog.TableId;
import io.postlog.TableSchema;
import io.postlog.admin.SlotLifecycle;
import io.postlog.schema.DdlEvents;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Schema changes from the stream's Relation messages on a real server: every kind of DDL
 * PostgreSQL applies to a published table runs while a writer commits, and each schema
 * change reaches the subscription before the first row in its new shape, in commit order,
 * with {@code after()} equal to the catalog.
 */
@PostgresTest
@Tag("matrix")
class SchemaChangeIntegrationTests {

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	private final AtomicBoolean writing = new AtomicBoolean(true);

	private final List<Thread> writers = new ArrayList<>();

	@AfterEach
	void stop() throws InterruptedException {
		this.writing.set(false);
		for (Thread writer : this.writers) {
			writer.join(10_000);
		}
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void everyKindOfDdlArrivesBeforeTheFirstRowInItsShapeWithTheCatalogsShape(PostgresDatabase database)
			throws Exception {
		database.execute("DROP TABLE IF EXISTS evolving, evolved",
				"CREATE TABLE evolving (id int PRIMARY KEY, a int DEFAULT 1, b text DEFAULT 'x', x text DEFAULT 'y')");
		List<Object> seen = new CopyOnWriteArrayList<>();
		start(database, seen, "schema_slot", false);
		AtomicReference<String> table = new AtomicReference<>("evolving");
		AtomicInteger written = startWriter(database, table);
		await().atMost(Duration.ofSeconds(30)).until(() -> changes(seen) > 0);
		assertThat(schemaChanges(seen)).isEmpty();
		List<Kind> expected = everyKindOfDdl(database, seen, table);
		int total = written.get();
		await().atMost(Duration.ofSeconds(30)).until(() -> changes(seen) >= total);
		assertThat(schemaChanges(seen).stream().map(SchemaChange::kind).toList()).isEqualTo(expected);
		assertEveryRowHasTheShapeAnnouncedBeforeIt(seen, false);
	}

	@Test
	void ddlEventsClassifyEveryKindAtTheDdlsCommitAndATableDrop(PostgresDatabase database) throws Exception {
		database.execute("DROP TABLE IF EXISTS evolving, evolved",
				"CREATE TABLE evolving (id int PRIMARY KEY, a int DEFAULT 1, b text DEFAULT 'x', x text DEFAULT 'y')");
		List<Object> seen = new CopyOnWriteArrayList<>();
		if (database.serverVersion() < 140000) {
			assertThatThrownBy(() -> start(database, seen, "ddl_slot", true))
				.hasMessageContaining("postlog.schema.ddl-events")
				.hasMessageContaining(
						"need PostgreSQL 14 or later; the server is PostgreSQL " + (database.serverVersion() / 10000));
			return;
		}
		start(database, seen, "ddl_slot", true);
		AtomicReference<String> table = new AtomicReference<>("evolving");
		AtomicInteger written = startWriter(database, table);
		await().atMost(Duration.ofSeconds(30)).until(() -> changes(seen) > 0);
		List<Kind> expected = everyKindOfDdl(database, seen, table);
		int total = written.get();
		await().atMost(Duration.ofSeconds(30)).until(() -> changes(seen) >= total);
		database.execute("DROP TABLE evolved");
		expected.add(Kind.DROP_TABLE);
		await().atMost(Duration.ofSeconds(30)).until(() -> schemaChanges(seen).size() >= expected.size());
		// The kinds first: a mismatch prints them all.
		assertThat(schemaChanges(seen).stream().map(SchemaChange::kind).toList()).isEqualTo(expected);
		SchemaChange dropped = schemaChanges(seen).get(expected.size() - 1);
		assertThat(dropped.after()).isNull();
		assertThat(dropped.table()).isEqualTo(new TableId("public", "evolved"));
		assertEveryRowHasTheShapeAnnouncedBeforeIt(seen, true);
		try (Connection connection = database.connect()) {
			DdlEvents.remove(connection);
			try (Statement statement = connection.createStatement();
					ResultSet rows = statement
						.executeQuery("SELECT count(*) FROM pg_event_trigger WHERE evtname LIKE 'postlog%'")) {
				rows.next();
				assertThat(rows.getInt(1)).isZero();
			}
		}
	}

	/**
	 * The catalog ahead of the stream: a Relation sent again (here after a storage
	 * parameter changed; also in every new session) is read after a later
	 * {@code DROP COLUMN x, ADD COLUMN y} of the same type committed, which the catalog
	 * already shows. The DDL is still a drop and an add, not a rename: seen in a run of
	 * .ci/run on 18, where decoding lagged under load; a large transaction before makes
	 * the stream lag here. With DDL events too, from 14 on.
	 */
	@Test
	void aDropAndAnAddAreNotARenameWhenTheCatalogIsAheadOfTheStream(PostgresDatabase database) throws Exception {
		database.execute("DROP TABLE IF EXISTS lagging, lagging_bulk",
				"CREATE TABLE lagging (id int PRIMARY KEY, x text)",
				"CREATE TABLE lagging_bulk (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text)");
		List<TableId> tables = List.of(new TableId("public", "lagging"), new TableId("public", "lagging_bulk"));
		List<Object> relations = new CopyOnWriteArrayList<>();
		start(database, relations, "lagging_slot", false, tables);
		List<Object> events = new CopyOnWriteArrayList<>();
		boolean ddlEvents = database.serverVersion() >= 140000;
		if (ddlEvents) {
			start(database, events, "lagging_ddl_slot", true, tables);
		}
		database.execute("INSERT INTO lagging VALUES (1, 'a')");
		await().atMost(Duration.ofSeconds(30))
			.until(() -> changes(relations) == 1 && (!ddlEvents || changes(events) == 1));
		// While the stream works through the bulk transaction, the rest commits.
		database.execute("INSERT INTO lagging_bulk (v) SELECT repeat('v', 100) FROM generate_series(1, 200000)",
				"ALTER TABLE lagging SET (fillfactor = 90)", "INSERT INTO lagging VALUES (2, 'b')",
				"ALTER TABLE lagging DROP COLUMN x, ADD COLUMN y text", "INSERT INTO lagging VALUES (3, 'c')");
		for (List<Object> seen : ddlEvents ? List.of(relations, events) : List.of(relations)) {
			await().atMost(Duration.ofSeconds(60)).until(() -> changes(seen) == 3);
			assertThat(schemaChanges(seen).stream().map(SchemaChange::kind).toList()).containsExactly(Kind.DROP_COLUMN,
					Kind.ADD_COLUMN);
			assertThat(schemaChanges(seen).get(1).after()).isEqualTo(catalog(database, "lagging"));
		}
	}

	private void start(PostgresDatabase database, List<Object> seen, String slot, boolean ddlEvents) {
		start(database, seen, slot, ddlEvents, List.of(new TableId("public", "evolving")));
	}

	private void start(PostgresDatabase database, List<Object> seen, String slot, boolean ddlEvents,
			List<TableId> tables) {
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName(slot)
			.slotLifecycle(SlotLifecycle.CREATE_IF_MISSING)
			.publicationName(slot + "_pub")
			.tables(tables)
			.statusInterval(Duration.ofSeconds(1))
			.stopTimeout(Duration.ofSeconds(10))
			.subscribe(Subscription.onChange("recorder", (ChangeHandler) (change) -> {
				// The bulk rows only hold the stream back.
				if (!change.table().name().equals("lagging_bulk")) {
					seen.add(change);
				}
			}).withSchemaHandler(seen::add))
			.schemaDdlEvents(ddlEvents)
			.build();
		this.consumers.add(consumer);
		consumer.start();
	}

	private List<Kind> everyKindOfDdl(PostgresDatabase database, List<Object> seen, AtomicReference<String> table)
			throws Exception {
		List<Kind> expected = new ArrayList<>();
		ddl(database, seen, expected, table, "ALTER TABLE evolving ADD COLUMN c int DEFAULT 0", Kind.ADD_COLUMN);
		ddl(database, seen, expected, table, "ALTER TABLE evolving DROP COLUMN b", Kind.DROP_COLUMN);
		ddl(database, seen, expected, table, "ALTER TABLE evolving RENAME COLUMN a TO a2", Kind.RENAME_COLUMN);
		ddl(database, seen, expected, table, "ALTER TABLE evolving ALTER COLUMN c TYPE bigint", Kind.ALTER_TYPE);
		ddl(database, seen, expected, table, "ALTER TABLE evolving ALTER COLUMN a2 SET NOT NULL",
				Kind.ALTER_NULLABILITY);
		ddl(database, seen, expected, table,
				"ALTER TABLE evolving DROP CONSTRAINT evolving_pkey, ADD PRIMARY KEY (id, a2)", Kind.ALTER_KEY);
		ddl(database, seen, expected, table, "ALTER TABLE evolving REPLICA IDENTITY FULL", Kind.ALTER_KEY);
		// A column dropped and another of the same type added in one statement: the
		// catalog's attribute numbers tell it from a rename.
		ddl(database, seen, expected, table, "ALTER TABLE evolving DROP COLUMN x, ADD COLUMN y text DEFAULT 'z'",
				Kind.DROP_COLUMN, Kind.ADD_COLUMN);
		ddl(database, seen, expected, table, "ALTER TABLE evolving RENAME TO evolved", Kind.RENAME_TABLE);
		return expected;
	}

	private void ddl(PostgresDatabase database, List<Object> seen, List<Kind> expected, AtomicReference<String> table,
			String sql, Kind... kinds) throws Exception {
		int before = changes(seen);
		await().atMost(Duration.ofSeconds(30)).until(() -> changes(seen) > before);
		int from = schemaChanges(seen).size();
		database.execute(sql);
		if (sql.contains(" RENAME TO ")) {
			table.set(sql.substring(sql.lastIndexOf(' ') + 1));
		}
		expected.addAll(List.of(kinds));
		// The change arrives with the writer's next row in the new shape; once, on a CI
		// machine running three suites, that took over 30 s.
		try {
			await(sql).atMost(Duration.ofSeconds(90)).until(() -> schemaChanges(seen).size() >= expected.size());
		}
		catch (ConditionTimeoutException ex) {
			// What the consumer had is what tells slowness from a change that never came:
			// in a run of .ci/run, DROP plus ADD read as a rename (see
			// aDropAndAnAddAreNotARenameWhenTheCatalogIsAheadOfTheStream).
			System.out.println("[diagnose] " + sql + ": consumers "
					+ this.consumers.stream().map(ReplicationConsumer::state).toList() + ", acknowledged "
					+ this.consumers.get(0).ackedLsn() + ", " + changes(seen) + " changes, schema changes "
					+ schemaChanges(seen).stream().map(SchemaChange::kind).toList() + ", table " + table.get());
			throw ex;
		}
		List<SchemaChange> arrived = schemaChanges(seen).subList(from, schemaChanges(seen).size());
		assertThat(arrived.stream().map(SchemaChange::kind).toList()).as(sql).containsExactly(kinds);
		SchemaChange last = arrived.get(arrived.size() - 1);
		assertThat(last.after()).as(sql).isEqualTo(catalog(database, table.get()));
		for (int i = 1; i < arrived.size(); i++) {
			assertThat(arrived.get(i).before()).isEqualTo(arrived.get(i - 1).after());
		}
	}

	private static void assertEveryRowHasTheShapeAnnouncedBeforeIt(List<Object> seen, boolean ddlEvents) {
		TableSchema shape = null;
		SchemaChange pending = null;
		long lastCommit = 0;
		for (Object item : seen) {
			if (item instanceof SchemaChange change) {
				if (shape != null) {
					assertThat(change.before()).isEqualTo(shape);
				}
				assertThat(Long.compareUnsigned(change.commitLsn().value(), lastCommit)).isGreaterThanOrEqualTo(0);
				lastCommit = change.commitLsn().value();
				shape = change.after();
				pending = change;
				continue;
			}
			Change change = (Change) item;
			assertThat(Long.compareUnsigned(change.commitLsn().value(), lastCommit)).isGreaterThanOrEqualTo(0);
			lastCommit = change.commitLsn().value();
			if (pending != null) {
				// From Relation messages the schema change comes in the transaction of
				// the
				// first row in its shape; from DDL events, at the DDL's commit, before
				// it.
				if (ddlEvents) {
					assertThat(change.commitLsn()).isGreaterThan(pending.commitLsn());
				}
				else {
					assertThat(change.commitLsn()).isEqualTo(pending.commitLsn());
				}
				pending = null;
			}
			if (shape != null) {
				assertThat(change.table()).isEqualTo(shape.table());
				assertThat(change.after().columns())
					.isEqualTo(shape.columns().stream().map(TableSchema.Column::name).toList());
			}
		}
	}

	private AtomicInteger startWriter(PostgresDatabase database, AtomicReference<String> table) {
		AtomicInteger written = new AtomicInteger();
		Thread writer = new Thread(() -> {
			try (Connection connection = database.connect()) {
				int id = 0;
				while (this.writing.get()) {
					try (Statement statement = connection.createStatement()) {
						statement.execute("INSERT INTO " + table.get() + " (id) VALUES (" + (id + 1) + ")");
						id++;
						written.set(id);
					}
					catch (SQLException ex) {
						// The table was renamed under the writer: the next round uses the
						// new name.
						Thread.sleep(5);
					}
					Thread.sleep(2);
				}
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}, "schema-writer");
		writer.start();
		this.writers.add(writer);
		return written;
	}

	static TableSchema catalog(PostgresDatabase database, String table) throws SQLException {
		List<TableSchema.Column> columns = new ArrayList<>();
		try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement("""
				SELECT a.attname, a.atttypid, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
				       CASE c.relreplident WHEN 'f' THEN true WHEN 'n' THEN false
				       ELSE EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid
				                    AND CASE c.relreplident WHEN 'd' THEN i.indisprimary ELSE i.indisreplident END
				                    AND a.attnum = ANY (i.indkey)) END
				FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
				WHERE c.oid = ?::regclass ORDER BY a.attnum""")) {
			statement.setString(1, table);
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					columns.add(new TableSchema.Column(rows.getString(1), (int) rows.getLong(2), rows.getString(3),
							rows.getBoolean(4), rows.getBoolean(5)));
				}
			}
		}
		return new TableSchema(new TableId("public", table), columns);
	}

	static int changes(List<Object> seen) {
		return (int) seen.stream().filter(Change.class::isInstance).count();
	}

	static List<SchemaChange> schemaChanges(List<Object> seen) {
		return seen.stream().filter(SchemaChange.class::isInstance).map(SchemaChange.class::cast).toList();
	}

}
