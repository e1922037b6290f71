package io.postlog.consumer.backfill;

import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.postlog.TableId;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The progress table created by sessions racing each other, as a backfill submitted while
 * the runner resumes others does: every one succeeds, whichever of PostgreSQL's errors
 * the losers of a race got (in a run of .ci/run, on 14, one got {@code 42710}, "type
 * already exists", which was not taken for a race and failed the backfill's submission).
 */
@PostgresTest
class BackfillStoreIntegrationTests {

	private static final int SESSIONS = 4;

	private static final int ROUNDS = 40;

	@Test
	void sessionsCreatingTheProgressTableAtOnceAllSucceed(PostgresDatabase database) throws Exception {
		BackfillStore store = new BackfillStore(new TableId("public", "raced_backfill"), "raced_slot");
		ExecutorService sessions = Executors.newFixedThreadPool(SESSIONS);
		try {
			for (int round = 0; round < ROUNDS; round++) {
				database.execute("DROP TABLE IF EXISTS raced_backfill");
				CyclicBarrier start = new CyclicBarrier(SESSIONS);
				List<Future<?>> created = new ArrayList<>();
				for (int i = 0; i < SESSIONS; i++) {
					created.add(sessions.submit(() -> {
						try (Connection connection = database.connect()) {
							connection.setAutoCommit(true);
							start.await(30, TimeUnit.SECONDS);
							store.create(connection);
						}
						return null;
					}));
				}
				for (Future<?> session : created) {
					// Throws what a session threw.
					session.get(60, TimeUnit.SECONDS);
				}
				try (Connection connection = database.connect();
						ResultSet columns = connection.getMetaData()
							.getColumns(null, "public", "raced_backfill", null)) {
					List<String> names = new ArrayList<>();
					while (columns.next()) {
						names.add(columns.getString("COLUMN_NAME"));
					}
					assertThat(names).contains("slot_name", "backfill_id", "chunk_to");
				}
			}
		}
		finally {
			sessions.shutdownNow();
		}
	}

}
