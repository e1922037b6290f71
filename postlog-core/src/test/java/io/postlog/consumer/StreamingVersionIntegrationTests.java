package io.postlog.consumer;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.Change;
import io.postlog.TableId;
import io.postlog.admin.SlotStatistics;
import io.postlog.decoder.DecoderRefusedException;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Streaming against servers of every version: refused at start before PostgreSQL 14 with
 * the server's version named and nothing set up, and no slot statistics there.
 */
@Tag("matrix")
@PostgresTest
class StreamingVersionIntegrationTests {

	@TempDir
	Path spillRoot;

	@Test
	void streamingIsRefusedBeforePostgresFourteenNamingTheServerVersion(PostgresDatabase database) throws Exception {
		Assumptions.assumeTrue(database.serverVersion() < 140000, "servers from 14 on stream");
		database.execute("CREATE TABLE refused (id int PRIMARY KEY)");
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName("refused_slot")
			.publicationName("refused_pub")
			.tables(List.of(TableId.parse("refused")))
			.binary(false)
			.streaming(1 << 20, this.spillRoot, 1 << 30)
			.changeHandler(new CopyOnWriteArrayList<Change>()::add)
			.build();
		int major = database.serverVersion() / 10000;
		assertThatExceptionOfType(DecoderRefusedException.class).isThrownBy(consumer::start)
			.withMessageContaining("Decoder pgoutput: streaming in-progress transactions needs PostgreSQL 14 or later")
			.withMessageContaining("the server is PostgreSQL " + major + ".");
		assertThat(consumer.state()).isEqualTo(ConsumerState.FAILED);
		consumer.stop();
		assertThat(ReplicationConsumerIntegrationTests.query(database,
				"SELECT count(*)::text FROM pg_replication_slots WHERE slot_name = 'refused_slot'"))
			.as("no slot was created")
			.isEqualTo("0");
		assertThat(ReplicationConsumerIntegrationTests.query(database,
				"SELECT count(*)::text FROM pg_publication WHERE pubname = 'refused_pub'"))
			.as("no publication was created")
			.isEqualTo("0");
		try (Connection connection = database.connect()) {
			assertThat(SlotStatistics.read(connection, "refused_slot")).isEmpty();
		}
	}

	@Test
	void slotStatisticsOfANewSlotCountNothingFromPostgresFourteenOn(PostgresDatabase database) throws Exception {
		Assumptions.assumeTrue(database.serverVersion() >= 140000, "pg_stat_replication_slots came with 14");
		database.execute("SELECT pg_create_logical_replication_slot('counted_slot', 'pgoutput')");
		try (Connection connection = database.connect()) {
			await().until(() -> SlotStatistics.read(connection, "counted_slot").isPresent());
			assertThat(SlotStatistics.read(connection, "counted_slot"))
				.contains(new SlotStatistics("counted_slot", 0, 0, 0, 0, 0, 0));
			assertThat(SlotStatistics.read(connection, "no_such_slot")).isEmpty();
		}
		finally {
			database.execute("SELECT pg_drop_replication_slot('counted_slot')");
		}
	}

}
