package io.postlog.spring;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.MeterRegistry;
import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.PostlogException;
import io.postlog.UnchangedToast;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * Each TOAST policy on a real server, with 20 kB values stored out of line and rows
 * updated through another column (the server does not resend the big value): the marker
 * stays the default, {@code RESELECT} and a {@code ToastResolver} give whole rows
 * ({@code RESELECT} counted in {@code postlog.toast.reselects}), {@code REQUIRE_FULL}
 * gives whole rows from a {@code REPLICA IDENTITY FULL} table and fails start-up on a
 * table without it, naming the fix.
 */
@PostgresTest
class ToastPoliciesApplicationIntegrationTests {

	private static final int ROWS = 3;

	@AfterEach
	void clear() {
		Docs.marker.clear();
		Docs.reselect.clear();
		Docs.resolved.clear();
		Docs.full.clear();
		Docs.sink.clear();
	}

	@Test
	void markerIsTheDefaultAndReselectResolverAndRequireFullGiveWholeRows(PostgresDatabase database) {
		createTable(database, "tt_docs", false);
		createTable(database, "tt_full", true);
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(DocsApplication.class,
				database, "postlog.slot.name=tt_slot", "postlog.publication.name=tt_pub")) {
			database.execute(insert("tt_docs"), insert("tt_full"));
			await().atMost(Duration.ofSeconds(60)).until(() -> Docs.sink.size() == ROWS && Docs.full.size() == ROWS);
			database.execute("UPDATE tt_docs SET counter = counter + 1", "UPDATE tt_full SET counter = counter + 1");
			await().atMost(Duration.ofSeconds(60))
				.until(() -> updates(Docs.marker) == ROWS && updates(Docs.reselect) == ROWS
						&& updates(Docs.resolved) == ROWS && updates(Docs.full) == ROWS);
			Map<Object, Object> big = bigValues(database, "tt_docs");
			assertThat(big.values()).allSatisfy((value) -> assertThat((String) value).hasSizeGreaterThan(20_000));
			for (Change change : updatesOf(Docs.marker)) {
				assertThat(change.after().get("big")).as("the default is the marker").isSameAs(UnchangedToast.INSTANCE);
			}
			for (Change change : updatesOf(Docs.reselect)) {
				assertThat(change.after().get("big")).isEqualTo(big.get(change.after().get("id")));
				assertThat(change.after().get("counter")).isEqualTo(1);
			}
			for (Change change : updatesOf(Docs.resolved)) {
				assertThat(change.after().get("big")).isEqualTo(big.get(change.after().get("id")));
			}
			Map<Object, Object> fullBig = bigValues(database, "tt_full");
			for (Change change : updatesOf(Docs.full)) {
				assertThat(change.after().get("big")).isEqualTo(fullBig.get(change.after().get("id")));
			}
			assertThat(context.getBean(MeterRegistry.class)
				.get("postlog.toast.reselects")
				.tag("group", "default")
				.functionCounter()
				.count()).isEqualTo(ROWS);
		}
	}

	@Test
	void requireFullFailsStartUpOnATableWithoutReplicaIdentityFullNamingTheFix(PostgresDatabase database) {
		createTable(database, "tt_keyed", false);
		assertThatException()
			.isThrownBy(() -> PostlogListenersIntegrationTests.run(RequireFullApplication.class, database,
					"postlog.slot.name=tt_refused_slot", "postlog.publication.name=tt_refused_pub"))
			.satisfies((ex) -> {
				Throwable cause = ex;
				while (cause != null && !(cause instanceof PostlogException && cause.getMessage().contains("toast"))) {
					cause = cause.getCause();
				}
				assertThat(cause).isNotNull()
					.hasMessage("Listener 'Keyed.onKeyed' has toast = REQUIRE_FULL, which takes unchanged TOASTed "
							+ "values from the whole old row, but table public.tt_keyed has REPLICA IDENTITY "
							+ "DEFAULT, whose old rows hold the key only; run ALTER TABLE \"public\".\"tt_keyed\" "
							+ "REPLICA IDENTITY FULL, or choose another toast policy");
			});
	}

	private static void createTable(PostgresDatabase database, String table, boolean full) {
		database.execute("DROP TABLE IF EXISTS " + table,
				"CREATE TABLE " + table + " (id int PRIMARY KEY, counter int NOT NULL, big text NOT NULL)",
				"ALTER TABLE " + table + " ALTER COLUMN big SET STORAGE EXTERNAL");
		if (full) {
			database.execute("ALTER TABLE " + table + " REPLICA IDENTITY FULL");
		}
	}

	private static String insert(String table) {
		// 20,480 characters of md5 text per row, stored out of line (STORAGE EXTERNAL).
		return "INSERT INTO " + table + " SELECT g, 0, (SELECT string_agg(md5(g::text || i::text), '') "
				+ "FROM generate_series(1, 640) i) FROM generate_series(1, " + ROWS + ") g";
	}

	private static Map<Object, Object> bigValues(PostgresDatabase database, String table) {
		Map<Object, Object> values = new ConcurrentHashMap<>();
		try (var connection = database.connect();
				var statement = connection.createStatement();
				var row = statement.executeQuery("SELECT id, big FROM " + table)) {
			while (row.next()) {
				values.put(row.getInt(1), row.getString(2));
			}
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
		return values;
	}

	private static long updates(List<Change> changes) {
		return updatesOf(changes).size();
	}

	private static List<Change> updatesOf(List<Change> changes) {
		return changes.stream().filter((change) -> change.operation() == Operation.UPDATE).toList();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class DocsApplication {

		@Bean
		Docs docs() {
			return new Docs();
		}

		@Bean
		ToastResolver fromTheSink() {
			// The listener's own sink holds the last whole row it was given.
			return (change, columns) -> Map.of("big", Docs.sink.get(change.after().get("id")));
		}

	}

	static class Docs {

		static final List<Change> marker = new CopyOnWriteArrayList<>();

		static final List<Change> reselect = new CopyOnWriteArrayList<>();

		static final List<Change> resolved = new CopyOnWriteArrayList<>();

		static final List<Change> full = new CopyOnWriteArrayList<>();

		static final Map<Object, Object> sink = new ConcurrentHashMap<>();

		@PgChangeListener(tables = "tt_docs")
		void onMarker(Change change) {
			marker.add(change);
		}

		@PgChangeListener(tables = "tt_docs", toast = ToastPolicy.RESELECT)
		void onReselect(Change change) {
			reselect.add(change);
		}

		@PgChangeListener(tables = "tt_docs", toast = ToastPolicy.RESOLVER)
		void onResolved(Change change) {
			resolved.add(change);
			if (change.operation() == Operation.INSERT) {
				sink.put(change.after().get("id"), change.after().get("big"));
			}
		}

		@PgChangeListener(tables = "tt_full", toast = ToastPolicy.REQUIRE_FULL)
		void onFull(Change change) {
			full.add(change);
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class RequireFullApplication {

		@Bean
		Keyed keyed() {
			return new Keyed();
		}

	}

	static class Keyed {

		@PgChangeListener(tables = "tt_keyed", toast = ToastPolicy.REQUIRE_FULL)
		void onKeyed(Change change) {
		}

	}

}
