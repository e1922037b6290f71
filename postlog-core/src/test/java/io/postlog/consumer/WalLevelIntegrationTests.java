package io.postlog.consumer;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

import io.postlog.TableId;
import io.postlog.admin.WalLevelException;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@PostgresTest(settings = { "wal_level=replica" })
class WalLevelIntegrationTests {

	@Test
	void startRefusesAServerWithoutLogicalWalLevelBeforeAnySetUp(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE orders (id int PRIMARY KEY)");
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName("replica_slot")
			.publicationName("replica_pub")
			.tables(List.of(new TableId("public", "orders")))
			.changeHandler((change) -> {
			})
			.build();
		try {
			assertThatExceptionOfType(WalLevelException.class).isThrownBy(consumer::start)
				.withMessageContaining("replica");
			assertThat(consumer.state()).isEqualTo(ConsumerState.FAILED);
		}
		finally {
			consumer.stop();
		}
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(
						"SELECT (SELECT count(*) FROM pg_publication) + (SELECT count(*) FROM pg_replication_slots)")) {
			rows.next();
			assertThat(rows.getInt(1)).isZero();
		}
	}

}
