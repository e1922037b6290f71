package io.postlog.consumer;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.TableId;
import org.jspecify.annotations.Nullable;

/**
 * A process for {@link SnapshotOutOfMemoryIntegrationTests} and
 * {@link LargeRowHeapIntegrationTests}: a {@link ReplicationConsumer} that receives a
 * table's large row in one of three ways, {@code snapshot} (an initial snapshot, one
 * reader), {@code stream} (no snapshot: it prints {@code streaming} once it runs, and the
 * test then inserts the row) or {@code backfill} (a backfill of the table once it
 * streams), with binary or text values. Prints {@code snapshot-started} per snapshot it
 * begins; per change it receives, {@code row <operation>} and per value its length and
 * hash ({@link String#hashCode()} or {@link Arrays#hashCode(byte[])}); then, once the
 * consumer left {@code SNAPSHOT} (snapshot) or a row arrived or the consumer failed
 * (stream, backfill), {@code state <STATE> <exception classes of the cause chain>}. Its
 * slot and publication are named after the table ({@code
 *
<table>
 * _slot}, {@code
 *
<table>
 * _pub}). Keeps no row: the heap it runs in is what the consumer needs for one.
 */
final class LargeRowChild {

	private LargeRowChild() {
	}

	/**
	 * Runs the child.
	 * @param args JDBC URL, user, table, and optionally the mode ({@code snapshot} by
	 * default, {@code stream}, {@code backfill}) and whether values are binary (by
	 * default the consumer's default)
	 * @throws Exception on any failure
	 */
	public static void main(String[] args) throws Exception {
		String mode = (args.length > 3) ? args[3] : "snapshot";
		TableId table = TableId.parse(args[2]);
		AtomicInteger snapshots = new AtomicInteger();
		AtomicInteger rows = new AtomicInteger();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		ReplicationConsumer.Builder builder = ReplicationConsumer.builder()
			.jdbcUrl(args[0], args[1], null)
			.slotName(table.name() + "_slot")
			.publicationName(table.name() + "_pub")
			.tables(List.of(table))
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
					print("snapshot-started");
				}

			})
			.changeHandler((change) -> {
				print("row " + change.operation() + describe(change));
				rows.incrementAndGet();
			});
		if (args.length > 4) {
			builder.binary(Boolean.parseBoolean(args[4]));
		}
		if (mode.equals("snapshot")) {
			builder.initialSnapshot(1, 1_000);
		}
		else if (mode.equals("backfill")) {
			builder.backfills(1_000);
		}
		ReplicationConsumer consumer = builder.build();
		consumer.start();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		boolean announced = false;
		while (System.nanoTime() - deadline < 0) {
			ConsumerState state = consumer.state();
			if (!mode.equals("snapshot") && !announced && state == ConsumerState.RUNNING) {
				announced = true;
				if (mode.equals("backfill")) {
					consumer.backfill(List.of(table));
				}
				print("streaming");
			}
			boolean done = mode.equals("snapshot")
					? snapshots.get() > 0 && state != ConsumerState.SNAPSHOT && state != ConsumerState.STARTING
					: rows.get() > 0 || state == ConsumerState.FAILED || state == ConsumerState.STOPPED;
			if (done) {
				StringBuilder causes = new StringBuilder();
				for (Throwable cause = failure.get(); cause != null; cause = cause.getCause()) {
					causes.append(' ').append(cause.getClass().getName());
				}
				print("state " + state + causes);
				break;
			}
			Thread.sleep(20);
		}
		System.exit(0);
	}

	private static String describe(Change change) {
		StringBuilder line = new StringBuilder();
		if (change.after() != null) {
			for (Object value : change.after().asMap().values()) {
				if (value instanceof String text) {
					line.append(' ').append(text.length()).append(':').append(text.hashCode());
				}
				else if (value instanceof byte[] bytes) {
					line.append(' ').append(bytes.length).append(':').append(Arrays.hashCode(bytes));
				}
			}
		}
		return line.toString();
	}

	private static void print(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
