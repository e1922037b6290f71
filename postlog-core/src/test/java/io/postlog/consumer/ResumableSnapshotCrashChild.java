package io.postlog.consumer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.Transaction;

/**
 * A process for {@link ResumableSnapshotCrashIntegrationTests} to kill: a
 * {@link ReplicationConsumer} with an initial snapshot and backfills (so the snapshot
 * resumes), whose transaction subscription applies every batch of snapshot rows and every
 * streamed transaction to a sink table in one JDBC transaction (upsert by key, delete by
 * key) and never starts the sink over. Prints {@code snapshot-started} when a fresh
 * snapshot begins, {@code snapshot-rows N} before it applies N {@code SNAPSHOT} rows, and
 * {@code snapshot-complete} once the snapshot (or the backfill resuming it) is done;
 * exits 0 once it applied the sentinel row after that.
 */
final class ResumableSnapshotCrashChild {

	static final long SENTINEL = -1;

	private ResumableSnapshotCrashChild() {
	}

	/**
	 * Runs the child.
	 * @param args JDBC URL, user, slot, publication, source table, sink table, rows per
	 * millisecond slept, chunk size
	 * @throws Exception on any failure
	 */
	public static void main(String[] args) throws Exception {
		String url = args[0];
		String user = args[1];
		String sink = args[5];
		int rowsPerSleep = Integer.parseInt(args[6]);
		int chunkSize = Integer.parseInt(args[7]);
		CountDownLatch sentinel = new CountDownLatch(1);
		CountDownLatch handedOver = new CountDownLatch(1);
		try (Connection connection = DriverManager.getConnection(url, user, null)) {
			connection.setAutoCommit(false);
			PreparedStatement upsert = connection.prepareStatement("INSERT INTO " + sink + " (id, a, b)"
					+ " VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET a = EXCLUDED.a, b = EXCLUDED.b");
			PreparedStatement delete = connection.prepareStatement("DELETE FROM " + sink + " WHERE id = ?");
			ReplicationConsumer consumer = ReplicationConsumer.builder()
				.jdbcUrl(url, user, null)
				.slotName(args[2])
				.publicationName(args[3])
				.tables(List.of(TableId.parse(args[4])))
				.statusInterval(Duration.ofMillis(500))
				.initialSnapshot(2, chunkSize)
				.backfills(chunkSize)
				.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1), -1))
				.listener(new ConsumerListener() {

					@Override
					public void snapshotStarted(Lsn consistentPoint, List<TableId> tables) {
						System.out.println("snapshot-started at " + consistentPoint);
						System.out.flush();
					}

					@Override
					public void snapshotCompleted(SnapshotProgress progress) {
						handedOver.countDown();
					}

				})
				.transactionHandler((Transaction transaction) -> {
					if (transaction.xid() == 0) {
						System.out.println("snapshot-rows " + transaction.changes().size());
						System.out.flush();
					}
					boolean last = apply(transaction, upsert, delete);
					connection.commit();
					if (transaction.xid() == 0) {
						Thread.sleep(transaction.changes().size() / rowsPerSleep);
					}
					if (last) {
						sentinel.countDown();
					}
				})
				.build();
			consumer.start();
			awaitSnapshot(consumer, handedOver);
			System.out.println("snapshot-complete");
			System.out.flush();
			if (!sentinel.await(3, TimeUnit.MINUTES)) {
				System.out.println("no sentinel");
				System.exit(2);
			}
			consumer.stop();
		}
		System.out.println("done");
		System.out.flush();
		System.exit(0);
	}

	/**
	 * Waits until the snapshot was handed over, or the backfill resuming it completed (or
	 * none was left to resume).
	 */
	private static void awaitSnapshot(ReplicationConsumer consumer, CountDownLatch handedOver) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
		long runningSince = 0;
		while (handedOver.getCount() > 0) {
			if (System.nanoTime() - deadline > 0) {
				System.out.println("snapshot did not complete: " + consumer.state() + " " + consumer.backfills());
				System.exit(2);
			}
			if (consumer.state() == ConsumerState.RUNNING) {
				runningSince = (runningSince != 0) ? runningSince : System.nanoTime();
				List<Backfill> backfills = consumer.backfills();
				if (!backfills.isEmpty() && backfills.stream().allMatch((b) -> b.state() == Backfill.State.COMPLETED)) {
					return;
				}
				if (backfills.isEmpty() && System.nanoTime() - runningSince > TimeUnit.SECONDS.toNanos(5)) {
					return;
				}
			}
			Thread.sleep(20);
		}
	}

	private static boolean apply(Transaction transaction, PreparedStatement upsert, PreparedStatement delete)
			throws SQLException {
		boolean sentinel = false;
		for (Change change : transaction.changes()) {
			if (change.operation() == Operation.DELETE) {
				delete.setLong(1, change.before().get("id", Long.class));
				delete.executeUpdate();
				continue;
			}
			long id = change.after().get("id", Long.class);
			sentinel |= id == SENTINEL;
			upsert.setLong(1, id);
			upsert.setInt(2, change.after().get("a", Integer.class));
			upsert.setString(3, change.after().get("b", String.class));
			upsert.executeUpdate();
		}
		return sentinel;
	}

}
