package io.postlog.test;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@Tag("matrix")
class ReplicatedPostgresIntegrationTests {

	@Test
	void standbyReplaysThePrimaryAndTakesOverWhenPromoted() throws Exception {
		int primaryPort;
		int standbyPort;
		try (ReplicatedPostgres pair = ReplicatedPostgres.builder().start()) {
			primaryPort = pair.primary().port();
			standbyPort = pair.standby().port();
			assertThat(standbyPort).isNotEqualTo(primaryPort);
			execute(pair.primary(), "CREATE TABLE replicated (id int PRIMARY KEY)",
					"INSERT INTO replicated SELECT generate_series(1, 100)");
			pair.awaitStandbyCaughtUp(Duration.ofSeconds(30));
			assertThat(query(pair.standby(), "SELECT pg_is_in_recovery()::text")).isEqualTo("true");
			assertThat(query(pair.standby(), "SELECT count(*)::text FROM replicated")).isEqualTo("100");
			assertThatExceptionOfType(SQLException.class)
				.isThrownBy(() -> execute(pair.standby(), "INSERT INTO replicated VALUES (101)"))
				.satisfies((ex) -> assertThat(ex.getSQLState()).isEqualTo("25006"));
			assertThat(query(pair.primary(), "SELECT active::text FROM pg_replication_slots WHERE slot_name = '"
					+ ReplicatedPostgres.STANDBY_SLOT + "'"))
				.isEqualTo("true");
			assertThat(pair.standby().setting("hot_standby_feedback")).isEqualTo("on");
			if (pair.primary().serverVersion() >= 170000) {
				assertThat(pair.standby().setting("sync_replication_slots")).isEqualTo("on");
				assertThat(pair.primary().setting("synchronized_standby_slots"))
					.isEqualTo(ReplicatedPostgres.STANDBY_SLOT);
			}

			pair.crashPrimary();
			assertThat(accepts(primaryPort)).isFalse();
			pair.promoteStandby();
			assertThat(query(pair.standby(), "SELECT pg_is_in_recovery()::text")).isEqualTo("false");
			execute(pair.standby(), "INSERT INTO replicated VALUES (101)");
			assertThat(query(pair.standby(), "SELECT count(*)::text FROM replicated")).isEqualTo("101");
		}
		assertThat(accepts(primaryPort)).isFalse();
		assertThat(accepts(standbyPort)).isFalse();
	}

	private static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
			return true;
		}
		catch (java.io.IOException ex) {
			return false;
		}
	}

	private static void execute(EmbeddedPostgresServer server, String... statements) throws SQLException {
		try (Connection connection = server.connect("postgres"); Statement statement = connection.createStatement()) {
			for (String sql : statements) {
				statement.execute(sql);
			}
		}
	}

	private static String query(EmbeddedPostgresServer server, String sql) throws SQLException {
		try (Connection connection = server.connect("postgres");
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery(sql)) {
			row.next();
			return row.getString(1);
		}
	}

}
