package io.postlog.consumer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.postlog.Lsn;
import io.postlog.TableId;
import org.jspecify.annotations.Nullable;

/**
 * A process for {@link SnapshotOutOfMemoryIntegrationTests}: a
 * {@link ReplicationConsumer} with an initial snapshot of a table whose one row holds
 * more than its heap. Prints {@code snapshot-started} per snapshot it begins, then, once
 * the consumer leaves {@code SNAPSHOT},
 * {@code state <STATE> <exception classes of the cause chain>}.
 */
final class SnapshotOutOfMemoryChild {

	private SnapshotOutOfMemoryChild() {
	}

	/**
	 * Runs the child.
	 * @param args JDBC URL, user, table
	 * @throws Exception on any failure
	 */
	public static void main(String[] args) throws Exception {
		AtomicInteger snapshots = new AtomicInteger();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(args[0], args[1], null)
			.slotName("oom_slot")
			.publicationName("oom_pub")
			.tables(List.of(TableId.parse(args[2])))
			.initialSnapshot(1, 1_000)
			.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofMillis(500), -1))
			.listener(new ConsumerListener() {

				@Override
				public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
					if (cause != null) {
						failure.compareAndSet(null, cause);
					}
				}

				@Override
				public void snapshotStarted(Lsn consistentPoint, List<TableId> tables) {
					snapshots.incrementAndGet();
					System.out.println("snapshot-started");
					System.out.flush();
				}

			})
			.changeHandler((change) -> {
			})
			.build();
		consumer.start();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (System.nanoTime() - deadline < 0) {
			ConsumerState state = consumer.state();
			if (snapshots.get() > 0 && state != ConsumerState.SNAPSHOT && state != ConsumerState.STARTING) {
				StringBuilder causes = new StringBuilder();
				for (Throwable cause = failure.get(); cause != null; cause = cause.getCause()) {
					causes.append(' ').append(cause.getClass().getName());
				}
				System.out.println("state " + state + causes);
				System.out.flush();
				break;
			}
			Thread.sleep(20);
		}
		System.exit(0);
	}

}
