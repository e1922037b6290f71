package io.postlog.spring;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Change;
import io.postlog.SchemaChange;
import io.postlog.consumer.SubscriptionState;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Schema changes in a Spring application on a real server: a {@code @PgSchemaListener}
 * and a change listener that takes {@code SchemaChange} receive a dropped column before
 * the first row without it, and a record listener whose component was that column fails
 * alone through its error handler, naming the component and the change, while the other
 * record listener goes on.
 */
@PostgresTest
class SchemaListenersIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@Test
	void aRecordListenerFailsAloneAfterItsColumnIsDropped(PostgresDatabase database) {
		database.execute("CREATE TABLE gauges (id int PRIMARY KEY, reading int, unit text)");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(SchemaApplication.class,
				database, "postlog.slot.name=schema_slot", "postlog.publication.name=schema_pub",
				"postlog.retry.initial-interval=20ms", "postlog.retry.max-attempts=2")) {
			PostlogListenerRegistry registry = context.getBean(PostlogListenerRegistry.class);
			database.execute("INSERT INTO gauges VALUES (1, 10, 'bar')");
			await().atMost(TIMEOUT).until(() -> Gauges.readings.size() == 1 && Gauges.units.size() == 1);
			database.execute("ALTER TABLE gauges DROP COLUMN reading");
			database.execute("INSERT INTO gauges VALUES (2, 'psi')");
			database.execute("INSERT INTO gauges VALUES (3, 'kPa')");
			await().atMost(TIMEOUT).until(() -> Gauges.units.size() == 3);
			await().atMost(TIMEOUT)
				.until(() -> registry.listener("Gauges.readings").state() == SubscriptionState.STOPPED);

			assertThat(Gauges.readings).containsExactly(new Reading(1, 10));
			assertThat(Gauges.units).containsExactly(new Unit(1, "bar"), new Unit(2, "psi"), new Unit(3, "kPa"));
			assertThat(Gauges.schemaChanges).singleElement().satisfies((change) -> {
				assertThat(change.kind()).isEqualTo(SchemaChange.Kind.DROP_COLUMN);
				assertThat(change.after().columns()).extracting("name").containsExactly("id", "unit");
			});
			// The change listener that takes SchemaChange has it before the first row in
			// the new shape, in the same transaction.
			assertThat(Gauges.both).hasSize(4);
			assertThat(Gauges.both.get(0)).isInstanceOf(Change.class);
			assertThat(Gauges.both.get(1)).isEqualTo(Gauges.schemaChanges.get(0));
			Change second = (Change) Gauges.both.get(2);
			assertThat(second.commitLsn()).isEqualTo(Gauges.schemaChanges.get(0).commitLsn());
			assertThat(second.row().columns()).containsExactly("id", "unit");

			assertThat(Gauges.failures).singleElement().satisfies((event) -> {
				assertThat(event.listenerId()).isEqualTo("Gauges.readings");
				assertThat(event.outcome()).isEqualTo(PostlogListenerFailedEvent.Outcome.STOPPED);
				assertThat(event.exception().getMessage()).contains("Listener 'Gauges.readings'",
						"schema change DROP_COLUMN on public.gauges");
				assertThat(event.exception().getCause()).isInstanceOf(ListenerBindingException.class)
					.hasMessageContaining("component 'reading' matches no column");
			});
			assertThat(registry.listener("Gauges.units").state()).isEqualTo(SubscriptionState.RUNNING);
		}
	}

	@Test
	void withTheJdbcStoreAColumnAddedWhileStoppedIsAnnouncedBeforeTheFirstRowAfterARestart(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE meters (id int PRIMARY KEY, reading int)");
		String[] properties = { "postlog.slot.name=meters_slot", "postlog.publication.name=meters_pub",
				"postlog.checkpoint.store=jdbc" };
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(RestartApplication.class,
				database, properties)) {
			database.execute("INSERT INTO meters VALUES (1, 10)");
			await().atMost(TIMEOUT).until(() -> Meters.seen.size() == 1);
			String delivered = ((Change) Meters.seen.get(0)).commitLsn().toString();
			// At or past it: before PostgreSQL 15 the server also sends empty
			// transactions, which the store checkpoints too.
			await().atMost(TIMEOUT)
				.until(() -> "true".equals(query(database, "SELECT (commit_lsn >= '" + delivered
						+ "'::pg_lsn)::text FROM postlog_checkpoint WHERE slot_name = 'meters_slot'")));
		}
		database.execute("ALTER TABLE meters ADD COLUMN unit text");
		database.execute("INSERT INTO meters VALUES (2, 20, 'kWh')");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(RestartApplication.class,
				database, properties)) {
			await().atMost(TIMEOUT).until(() -> Meters.seen.size() == 3);
			SchemaChange added = (SchemaChange) Meters.seen.get(1);
			assertThat(added.kind()).isEqualTo(SchemaChange.Kind.ADD_COLUMN);
			assertThat(added.after().columns()).extracting("name").containsExactly("id", "reading", "unit");
			Change row = (Change) Meters.seen.get(2);
			assertThat(row.row().columns()).containsExactly("id", "reading", "unit");
			assertThat(row.commitLsn()).isEqualTo(added.commitLsn());
		}
	}

	private static @Nullable String query(PostgresDatabase database, String sql) throws SQLException {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(sql)) {
			return result.next() ? result.getString(1) : null;
		}
	}

	record Reading(int id, Integer reading) {
	}

	record Unit(int id, String unit) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class SchemaApplication {

		@Bean
		Gauges gauges() {
			return new Gauges();
		}

		@Bean
		ApplicationListener<PostlogListenerFailedEvent> failures() {
			return Gauges.failures::add;
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RestartApplication {

		@Bean
		Meters meters() {
			return new Meters();
		}

	}

	static class Meters {

		static final List<Object> seen = new CopyOnWriteArrayList<>();

		@PgSchemaListener(tables = "meters")
		void schema(SchemaChange change) {
			seen.add(change);
		}

		@PgChangeListener(tables = "meters", id = "Meters.rows")
		void rows(Change change) {
			seen.add(change);
		}

	}

	static class Gauges {

		static final List<Reading> readings = new CopyOnWriteArrayList<>();

		static final List<Unit> units = new CopyOnWriteArrayList<>();

		static final List<SchemaChange> schemaChanges = new CopyOnWriteArrayList<>();

		static final List<Object> both = new CopyOnWriteArrayList<>();

		static final List<PostlogListenerFailedEvent> failures = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "gauges", id = "Gauges.readings")
		void readings(Reading reading) {
			readings.add(reading);
		}

		@PgChangeListener(tables = "gauges", id = "Gauges.units")
		void units(Unit unit) {
			units.add(unit);
		}

		@PgSchemaListener(tables = "gauges")
		void schema(SchemaChange change) {
			schemaChanges.add(change);
		}

		@PgChangeListener(tables = "gauges", id = "Gauges.both")
		void both(Change change, SchemaChange schemaChange) {
			both.add((change != null) ? change : schemaChange);
		}

	}

}
