package io.postlog.consumer;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import io.postlog.PostlogException;
import io.postlog.snapshot.SnapshotConnections;
import io.postlog.stream.ReplicationConnectionFactory;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Every connection postlog opens itself sets {@code logServerErrorDetail=false}: the
 * server's {@code DETAIL}, which quotes the row of a unique violation, stays out of the
 * exception's message. A plain pgjdbc connection, as an application's pool opens them, is
 * the control: its message quotes the value.
 */
@PostgresTest
class ServerErrorDetailIntegrationTests {

	private static final String SECRET = "SECRET-detail-3e1f";

	@BeforeAll
	static void createTable(PostgresDatabase database) {
		database.execute("CREATE TABLE detailed (email text PRIMARY KEY)",
				"INSERT INTO detailed VALUES ('" + SECRET + "')");
	}

	@Test
	void aPlainConnectionQuotesTheValue(PostgresDatabase database) throws Exception {
		try (Connection connection = database.connect()) {
			assertThat(duplicate(connection).getMessage()).contains(SECRET);
		}
	}

	@Test
	void replicationConnectionsLeaveTheDetailOut(PostgresDatabase database) throws Exception {
		try (Connection connection = ReplicationConnectionFactory.of(database.jdbcUrl(), database.username(), null)
			.connect()) {
			SQLException duplicate = duplicate(connection);
			assertThat(duplicate.getSQLState()).isEqualTo("23505");
			assertThat(duplicate.getMessage()).doesNotContain(SECRET);
		}
	}

	@Test
	void snapshotAndBackfillReadersLeaveTheDetailOut(PostgresDatabase database) throws Exception {
		try (Connection connection = SnapshotConnections.of(database.jdbcUrl(), database.username(), null).connect()) {
			SQLException duplicate = duplicate(connection);
			assertThat(duplicate.getSQLState()).isEqualTo("23505");
			assertThat(duplicate.getMessage()).doesNotContain(SECRET);
		}
	}

	@Test
	void adminConnectionsLeaveTheDetailOut(PostgresDatabase database) {
		AdminConnections admin = AdminConnections.of(database.jdbcUrl(), database.username(), null);
		assertThatExceptionOfType(PostlogException.class).isThrownBy(() -> admin.apply("Inserting", (connection) -> {
			try (Statement statement = connection.createStatement()) {
				return statement.executeUpdate("INSERT INTO detailed VALUES ('" + SECRET + "')");
			}
		})).satisfies((ex) -> {
			assertThat(ex.getCause()).isInstanceOf(SQLException.class);
			assertThat(((SQLException) ex.getCause()).getSQLState()).isEqualTo("23505");
			assertThat(ex.getMessage()).doesNotContain(SECRET);
			assertThat(ex.getCause().getMessage()).doesNotContain(SECRET);
		});
	}

	private static SQLException duplicate(Connection connection) {
		try (Statement statement = connection.createStatement()) {
			statement.executeUpdate("INSERT INTO detailed VALUES ('" + SECRET + "')");
		}
		catch (SQLException ex) {
			return ex;
		}
		throw new AssertionError("The duplicate was inserted");
	}

}
