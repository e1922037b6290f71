package io.postlog.test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;
import org.postgresql.PGProperty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link TcpProxy} in front of a real server: it forwards, pauses, cuts and holds.
 */
@PostgresTest
class TcpProxyIntegrationTests {

	@Test
	void forwardsQueriesToTheServer(PostgresDatabase database) throws Exception {
		try (TcpProxy proxy = TcpProxy.start(database.server()); Connection connection = connect(proxy, database)) {
			assertThat(selectOne(connection)).isEqualTo(1);
			assertThat(proxy.acceptedConnections()).isEqualTo(1);
		}
	}

	@Test
	void pausedProxyHoldsAQueryUntilResumed(PostgresDatabase database) throws Exception {
		try (TcpProxy proxy = TcpProxy.start(database.server()); Connection connection = connect(proxy, database)) {
			proxy.pause();
			CompletableFuture<Integer> query = CompletableFuture.supplyAsync(() -> selectOne(connection));
			assertThatExceptionOfType(TimeoutException.class).isThrownBy(() -> query.get(500, TimeUnit.MILLISECONDS));
			proxy.resume();
			assertThat(query.get(10, TimeUnit.SECONDS)).isEqualTo(1);
		}
	}

	@Test
	void cutConnectionsEndsTheClientsConnection(PostgresDatabase database) throws Exception {
		try (TcpProxy proxy = TcpProxy.start(database.server()); Connection connection = connect(proxy, database)) {
			proxy.cutConnections();
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> selectOne(connection))
				.withCauseInstanceOf(SQLException.class);
			try (Connection again = connect(proxy, database)) {
				assertThat(selectOne(again)).isEqualTo(1);
			}
		}
	}

	@Test
	void heldConnectionNeverAnswersTheLogin(PostgresDatabase database) throws Exception {
		try (TcpProxy proxy = TcpProxy.start(database.server())) {
			proxy.holdNewConnections(true);
			Properties properties = properties(database);
			PGProperty.LOGIN_TIMEOUT.set(properties, 1);
			long start = System.nanoTime();
			assertThatExceptionOfType(SQLException.class)
				.isThrownBy(() -> DriverManager.getConnection(proxy.jdbcUrl(database.name()), properties));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
			assertThat(proxy.acceptedConnections()).isEqualTo(1);
		}
	}

	private static Connection connect(TcpProxy proxy, PostgresDatabase database) throws SQLException {
		return DriverManager.getConnection(proxy.jdbcUrl(database.name()), properties(database));
	}

	private static Properties properties(PostgresDatabase database) {
		Properties properties = new Properties();
		PGProperty.USER.set(properties, database.username());
		return properties;
	}

	private static int selectOne(Connection connection) {
		try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery("SELECT 1")) {
			row.next();
			return row.getInt(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
