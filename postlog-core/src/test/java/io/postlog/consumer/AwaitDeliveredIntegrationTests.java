package io.postlog.consumer;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link ReplicationConsumer#awaitDelivered} on a real server, with the position read
 * after each commit: it returns only after the handler finished that write, it returns on
 * an idle stream (a position past writes to unpublished tables), and it gives up at its
 * timeout while the handler still works on the write.
 */
@Tag("matrix")
@PostgresTest
class AwaitDeliveredIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void awaitDeliveredReturnsAfterTheHandlerFinishedTheWriteAndTimesOutWhileItWorks(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE fenced (id int PRIMARY KEY)", "CREATE TABLE unread (id int PRIMARY KEY)");
		Set<Integer> seen = ConcurrentHashMap.newKeySet();
		Gate gate = new Gate();
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName("fence_slot")
			.slotLifecycle(SlotLifecycle.CREATE_IF_MISSING)
			.publicationName("fence_pub")
			.tables(List.of(new TableId("public", "fenced")))
			.changeHandler((change) -> {
				int id = change.after().get("id", Integer.class);
				gate.pass(id);
				Thread.sleep(1);
				seen.add(id);
			})
			.build();
		consumer.start();
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			await().atMost(WAIT).until(() -> consumer.state() == ConsumerState.RUNNING);
			// The first write waits for the stream's first delivery after start, which
			// took over 20 s once on a loaded CI machine (PostgreSQL 10): it is logged,
			// and the fence is measured from the second write on.
			statement.execute("INSERT INTO fenced VALUES (0)");
			long started = System.nanoTime();
			assertThat(consumer.awaitDelivered(insertLsn(statement), Duration.ofSeconds(120))).isTrue();
			System.out.println("[measure] awaitDelivered: the first write after start was delivered in "
					+ Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms; server "
					+ database.serverVersion());
			int missed = 0;
			for (int id = 1; id <= 200; id++) {
				statement.execute("INSERT INTO fenced VALUES (" + id + ")");
				assertThat(consumer.awaitDelivered(insertLsn(statement), WAIT)).isTrue();
				if (!seen.contains(id)) {
					missed++;
				}
			}
			assertThat(missed).isZero();

			for (int id = 1; id <= 5; id++) {
				statement.execute("INSERT INTO unread VALUES (" + id + ")");
			}
			// Nothing of these reaches the handler: the fence is passed by the stream's
			// position (a timeout would return false).
			assertThat(consumer.awaitDelivered(insertLsn(statement), WAIT)).isTrue();

			CountDownLatch release = gate.hold(1000);
			statement.execute("INSERT INTO fenced VALUES (1000)");
			Lsn written = insertLsn(statement);
			assertThat(consumer.awaitDelivered(written, Duration.ofMillis(300))).isFalse();
			assertThat(seen).doesNotContain(1000);
			release.countDown();
			assertThat(consumer.awaitDelivered(written, WAIT)).isTrue();
			assertThat(seen).contains(1000);
		}
		finally {
			consumer.stop();
		}
	}

	@Test
	void aPositionReadPastAWalPageHeaderIsReachedWhenTheStreamReachesThePageEnd(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE paged (id int PRIMARY KEY)");
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName("paged_slot")
			.slotLifecycle(SlotLifecycle.CREATE_IF_MISSING)
			.publicationName("paged_pub")
			.tables(List.of(new TableId("public", "paged")))
			.changeHandler((change) -> {
			})
			.build();
		consumer.start();
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			await().atMost(WAIT).until(() -> consumer.state() == ConsumerState.RUNNING);
			Lsn pastHeader = commitToPageEnd(statement);
			// Without the header taken into account the stream's position stays at the
			// commit's end, the page's, until the server writes another record (its
			// running-transactions record comes within 15 s of activity); with it, the
			// commit delivered is enough, and 3 s are ample.
			assertThat(consumer.awaitDelivered(pastHeader, Duration.ofSeconds(3))).isTrue();
		}
		finally {
			consumer.stop();
		}
	}

	/**
	 * Commits a row to the published table so that its commit record ends exactly at the
	 * end of a WAL page that is not a segment's first, and returns
	 * {@code pg_current_wal_insert_lsn()} then: 24 bytes past the next page's start,
	 * after its header. Non-transactional logical messages pad the page first; they are
	 * not what the fence waits on (pgoutput sends them only from 14, with
	 * {@code messages}), the commit is, as in use.
	 */
	private static Lsn commitToPageEnd(Statement statement) throws SQLException {
		long page;
		try (ResultSet result = statement.executeQuery("SELECT current_setting('wal_block_size')::int")) {
			result.next();
			page = result.getInt(1);
		}
		for (int id = 1; id <= 100; id++) {
			long before = insertLsn(statement).value();
			emit(statement, 300);
			long emitted = insertLsn(statement).value();
			insert(statement, 1000 + id);
			long after = insertLsn(statement).value();
			long left = page - after % page;
			if (after / page != before / page || left < 1024) {
				// Crossed a page (the sizes measured hold a header) or too little left:
				// measure again on the next page.
				emit(statement, (int) left);
				continue;
			}
			// A message's record is its payload plus a fixed overhead, rounded up to 8
			// bytes: (emitted - before) - 300 bounds that overhead from above within 8.
			// The insert and its commit take (after - emitted) again: the heap page was
			// already written since the checkpoint, so no full-page image changes it.
			long transaction = after - emitted;
			emit(statement, (int) (left - transaction - (emitted - before - 300)));
			insert(statement, id);
			Lsn inserted = insertLsn(statement);
			if (inserted.value() % page == 24) {
				return inserted;
			}
		}
		throw new IllegalStateException("No commit ended at a WAL page's end in 100 attempts");
	}

	private static void insert(Statement statement, int id) throws SQLException {
		statement.execute("INSERT INTO paged VALUES (" + id + ")");
	}

	private static void emit(Statement statement, int bytes) throws SQLException {
		statement.execute("SELECT pg_logical_emit_message(false, 'postlog.test.pad', repeat('x', " + bytes + "))");
	}

	private static Lsn insertLsn(Statement statement) throws SQLException {
		try (ResultSet result = statement.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
			result.next();
			return Lsn.parse(result.getString(1));
		}
	}

	/** Holds the handler at one id until released. */
	static final class Gate {

		private volatile int id = -1;

		private volatile @Nullable CountDownLatch latch;

		CountDownLatch hold(int id) {
			CountDownLatch latch = new CountDownLatch(1);
			this.latch = latch;
			this.id = id;
			return latch;
		}

		void pass(int id) throws InterruptedException {
			CountDownLatch latch = this.latch;
			if (id == this.id && latch != null) {
				latch.await();
			}
		}

	}

}
