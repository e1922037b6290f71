package io.postlog.consumer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
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
 * A process for {@link InitialSnapshotCrashIntegrationTests} to kill: a
 * {@link ReplicationConsumer} with an initial snapshot whose transaction subscription
 * applies every batch of snapshot rows and every streamed transaction to a sink table in
 * one JDBC transaction (upsert by key, delete by key), as a read model would, starting
 * the sink over when a snapshot begins. Each snapshot batch also sleeps a little, so that
 * the snapshot lasts long enough to be killed in. Prints {@code snapshot-started},
 * {@code handed-over} and {@code done}; exits 0 once it applied the sentinel row.
 */
final class InitialSnapshotCrashChild {

	static final long SENTINEL = -1;

	private InitialSnapshotCrashChild() {
	}

	/**
	 * Runs the child.
	 * @param args JDBC URL, user, slot, publication, source table, sink table,
	 * milliseconds to sleep per snapshot batch
	 * @throws Exception on any failure
	 */
	public static void main(String[] args) throws Exception {
		String url = args[0];
		String user = args[1];
		String sink = args[5];
		long sleep = Long.parseLong(args[6]);
		CountDownLatch sentinel = new CountDownLatch(1);
		try (Connection connection = DriverManager.getConnection(url, user, null)) {
			connection.setAutoCommit(false);
			Applier applier = new Applier(connection, sink);
			ReplicationConsumer consumer = ReplicationConsumer.builder()
				.jdbcUrl(url, user, null)
				.slotName(args[2])
				.publicationName(args[3])
				.tables(List.of(TableId.parse(args[4])))
				.statusInterval(Duration.ofMillis(500))
				.initialSnapshot(2, 5_000)
				.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1), -1))
				.listener(new ConsumerListener() {

					@Override
					public void snapshotStarted(Lsn consistentPoint, List<TableId> tables) {
						applier.startOver();
						System.out.println("snapshot-started at " + consistentPoint);
						System.out.flush();
					}

					@Override
					public void snapshotCompleted(SnapshotProgress progress) {
						System.out.println("handed-over after " + progress.rowsDone() + " rows");
						System.out.flush();
					}

				})
				.transactionHandler((Transaction transaction) -> {
					boolean last = applier.apply(transaction);
					if (transaction.xid() == 0 && sleep > 0) {
						Thread.sleep(sleep);
					}
					if (last) {
						sentinel.countDown();
					}
				})
				.build();
			consumer.start();
			if (!sentinel.await(5, TimeUnit.MINUTES)) {
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
	 * Applies snapshot rows and streamed changes to the sink table, one transaction per
	 * batch or source transaction.
	 */
	private static final class Applier {

		private final Connection connection;

		private final String sink;

		private final PreparedStatement upsert;

		private final PreparedStatement delete;

		Applier(Connection connection, String sink) throws SQLException {
			this.connection = connection;
			this.sink = sink;
			this.upsert = connection.prepareStatement("INSERT INTO " + sink + " (id, a, b) VALUES (?, ?, ?)"
					+ " ON CONFLICT (id) DO UPDATE SET a = EXCLUDED.a, b = EXCLUDED.b");
			this.delete = connection.prepareStatement("DELETE FROM " + sink + " WHERE id = ?");
		}

		void startOver() {
			try (Statement statement = this.connection.createStatement()) {
				statement.execute("TRUNCATE " + this.sink);
				this.connection.commit();
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}

		/** Returns whether the transaction held the sentinel row. */
		boolean apply(Transaction transaction) throws SQLException {
			boolean sentinel = false;
			for (Change change : transaction.changes()) {
				if (change.operation() == Operation.DELETE) {
					this.delete.setLong(1, change.before().get("id", Long.class));
					this.delete.executeUpdate();
					continue;
				}
				long id = change.after().get("id", Long.class);
				sentinel |= id == SENTINEL;
				this.upsert.setLong(1, id);
				this.upsert.setInt(2, change.after().get("a", Integer.class));
				this.upsert.setString(3, change.after().get("b", String.class));
				this.upsert.executeUpdate();
			}
			this.connection.commit();
			return sentinel;
		}

	}

}
