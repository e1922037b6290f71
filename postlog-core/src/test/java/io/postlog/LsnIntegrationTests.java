package io.postlog;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

@Tag("matrix")
@PostgresTest
class LsnIntegrationTests {

	@Test
	void parsedServerPositionsAgreeWithTheServersArithmetic(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE filler (payload text)");
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			Lsn before = currentLsn(statement);
			statement.execute("INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, 1000)");
			Lsn after = currentLsn(statement);
			try (ResultSet diff = statement
				.executeQuery("SELECT pg_wal_lsn_diff('" + after + "', '" + before + "')::bigint")) {
				diff.next();
				assertThat(after.minus(before)).isEqualTo(diff.getLong(1)).isPositive();
			}
		}
	}

	private static Lsn currentLsn(Statement statement) throws Exception {
		try (ResultSet resultSet = statement.executeQuery("SELECT pg_current_wal_lsn()::text")) {
			resultSet.next();
			Lsn lsn = Lsn.parse(resultSet.getString(1));
			assertThat(lsn).hasToString(resultSet.getString(1));
			return lsn;
		}
	}

}
