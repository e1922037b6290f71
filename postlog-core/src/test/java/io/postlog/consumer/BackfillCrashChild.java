package io.postlog.consumer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.TableId;

/**
 * A process for {@link BackfillCrashIntegrationTests} to kill: a
 * {@link ReplicationConsumer} with backfills whose change handler applies every change to
 * a sink table (upsert or delete by key, each in its own transaction: idempotent, as an
 * at-least-once read model is), sleeping a little per backfilled row so that the backfill
 * lasts long enough to be killed in. With {@code start} it asks for a backfill of the
 * source table once streaming; otherwise it resumes the recorded one. Prints
 * {@code running}, {@code backfill-started}, {@code backfill-completed} and {@code done};
 * exits 0 once the backfill completed (in this run or before) and it applied the sentinel
 * row.
 */
final class BackfillCrashChild {

	static final long SENTINEL = -1;

	private BackfillCrashChild() {
	}

	/**
	 * Runs the child.
	 * @param args JDBC URL, user, slot, publication, source table, sink table, backfilled
	 * rows per millisecond of sleep, {@code start} or {@code resume}
	 * @throws Exception on any failure
	 */
	public static void main(String[] args) throws Exception {
		String url = args[0];
		String user = args[1];
		TableId source = TableId.parse(args[4]);
		String sink = args[5];
		int rowsPerSleep = Integer.parseInt(args[6]);
		CountDownLatch sentinel = new CountDownLatch(1);
		try (Connection connection = DriverManager.getConnection(url, user, null);
				PreparedStatement upsert = connection.prepareStatement("INSERT INTO " + sink
						+ " (id, a, b) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET a = EXCLUDED.a, b = EXCLUDED.b");
				PreparedStatement delete = connection.prepareStatement("DELETE FROM " + sink + " WHERE id = ?")) {
			long[] snapshotRows = { 0 };
			ReplicationConsumer consumer = ReplicationConsumer.builder()
				.jdbcUrl(url, user, null)
				.slotName(args[2])
				.publicationName(args[3])
				.tables(List.of(source))
				.statusInterval(Duration.ofMillis(500))
				.backfills(500)
				.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1), -1))
				.changeHandler((Change change) -> {
					if (change.operation() == Operation.DELETE) {
						delete.setLong(1, change.before().get("id", Long.class));
						delete.executeUpdate();
						return;
					}
					long id = change.after().get("id", Long.class);
					upsert.setLong(1, id);
					upsert.setInt(2, change.after().get("a", Integer.class));
					upsert.setString(3, change.after().get("b", String.class));
					upsert.executeUpdate();
					if (change.operation() == Operation.SNAPSHOT && ++snapshotRows[0] % rowsPerSleep == 0) {
						Thread.sleep(1);
					}
					if (id == SENTINEL) {
						sentinel.countDown();
					}
				})
				.build();
			consumer.start();
			while (consumer.state() != ConsumerState.RUNNING) {
				Thread.sleep(20);
			}
			System.out.println("running");
			System.out.flush();
			if ("start".equals(args[7])) {
				Backfill backfill = consumer.backfill(List.of(source));
				System.out.println("backfill-started " + backfill.id());
				System.out.flush();
			}
			long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
			long resumeBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
			while (consumer.backfills().isEmpty() && System.nanoTime() - resumeBy < 0) {
				Thread.sleep(20);
			}
			if (consumer.backfills().isEmpty()) {
				// Nothing left to resume: an earlier run completed it.
				System.out.println("backfill-completed before");
			}
			while (!consumer.backfills().isEmpty() && consumer.backfills().get(0).state() != Backfill.State.COMPLETED) {
				if (System.nanoTime() - deadline > 0) {
					System.out.println("backfill did not complete: " + consumer.backfills());
					System.exit(2);
				}
				Thread.sleep(20);
			}
			if (!consumer.backfills().isEmpty()) {
				System.out.println("backfill-completed " + consumer.backfills().get(0).rowsDone());
			}
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

}
