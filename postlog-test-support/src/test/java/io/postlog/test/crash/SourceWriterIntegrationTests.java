package io.postlog.test.crash;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Random;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link SourceWriter} and {@link Workloads} on a real server: its counts are what the
 * table received, a seed replays the same table, and a failing transaction stops it with
 * the failure reported.
 */
@PostgresTest
class SourceWriterIntegrationTests {

	@Test
	void countsAreWhatTheTableReceived(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE counted (k bigint PRIMARY KEY, v int NOT NULL)");
		SourceWriter writer = SourceWriter.on(database)
			.random(new Random(1))
			.limit(200)
			.start(Workloads.insertsWithUpdates("counted"));
		assertThat(writer.awaitDone(Duration.ofMinutes(2))).isTrue();
		writer.stop();
		assertThat(writer.transactions()).isEqualTo(200);
		assertThat(writer.updated()).isPositive();
		assertThat(query(database, "SELECT count(*) FROM counted")).isEqualTo(writer.inserted());
		assertThat(query(database, "SELECT max(k) FROM counted")).isEqualTo(writer.lastKey());
		assertThat(query(database, "SELECT sum(v) FROM counted")).isEqualTo(writer.inserted() + writer.updated());
		assertThat(writer.rate()).isPositive();
	}

	@Test
	void theSameSeedWritesTheSameTable(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE first (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"CREATE TABLE second (id bigint PRIMARY KEY, a int NOT NULL, b text)",
				"INSERT INTO first SELECT g, 0, '' FROM generate_series(1, 100) g",
				"INSERT INTO second SELECT g, 0, '' FROM generate_series(1, 100) g");
		for (String table : new String[] { "first", "second" }) {
			SourceWriter writer = SourceWriter.on(database)
				.random(new KillLoop(7).random("writer"))
				.firstKey(101)
				.limit(100)
				.start(Workloads.churn(table));
			assertThat(writer.awaitDone(Duration.ofMinutes(2))).isTrue();
			writer.stop();
			assertThat(query(database, "SELECT count(*) FROM " + table + " WHERE id > 100")).isPositive()
				.isLessThanOrEqualTo(writer.inserted());
			assertThat(query(database, "SELECT coalesce(max(id), 0) FROM " + table))
				.isLessThanOrEqualTo(writer.lastKey());
		}
		assertThat(query(database,
				"SELECT count(*) FROM first f FULL JOIN second s USING (id)" + " WHERE f.a IS DISTINCT FROM s.a"))
			.as("rows that differ")
			.isZero();
	}

	@Test
	void aFailingTransactionStopsTheWriterAndStopReportsIt(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE failing (k bigint PRIMARY KEY)");
		SourceWriter writer = SourceWriter.on(database).name("failing-writer").start((statement, tally) -> {
			if (tally.number() == 3) {
				statement.execute("INSERT INTO failing VALUES (1)");
			}
			statement.execute("INSERT INTO failing VALUES (" + tally.nextKey() + ")");
			tally.inserted(1);
		});
		assertThat(writer.awaitDone(Duration.ofMinutes(1))).isTrue();
		assertThatExceptionOfType(AssertionError.class).isThrownBy(writer::stop)
			.withMessageContaining("failing-writer failed after 2 transactions")
			.withCauseInstanceOf(SQLException.class);
		assertThat(writer.transactions()).isEqualTo(2);
		assertThat(query(database, "SELECT count(*) FROM failing")).isEqualTo(2);
	}

	static long query(PostgresDatabase database, String sql) throws SQLException {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery(sql)) {
			row.next();
			return row.getLong(1);
		}
	}

}
