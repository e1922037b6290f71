package io.postlog.consumer;

import java.io.BufferedWriter;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.test.crash.KillLoop;

/**
 * A consumer for {@link ConsumerCrashIntegrationTests} to run in a child JVM: it appends
 * each delivered change's id, its commit LSN, the row's key and version to a file,
 * flushed before the handler returns (or, in {@code deferred} mode, before it hands its
 * acknowledgement to another thread that acknowledges after a random delay), so that a
 * kill loses nothing the handler completed. In {@code lanes} mode the handler runs on 8
 * lanes. Stops cleanly when its standard input closes.
 */
final class CrashTestConsumer {

	private CrashTestConsumer() {
	}

	/**
	 * Runs the consumer.
	 * @param args JDBC URL, user, slot, publication, table, output file, mode
	 * ({@code serial}, {@code deferred} or {@code lanes})
	 * @throws Exception if the consumer cannot start
	 */
	public static void main(String[] args) throws Exception {
		String url = args[0];
		String user = args[1];
		try (Writer out = new BufferedWriter(
				new OutputStreamWriter(new FileOutputStream(args[5], true), StandardCharsets.UTF_8))) {
			String mode = (args.length > 6) ? args[6] : "serial";
			ScheduledExecutorService acknowledger = Executors.newSingleThreadScheduledExecutor();
			// Seeded by the parent's kill loop, so that a run can be replayed.
			Random random = new Random(Long.getLong(KillLoop.SEED_PROPERTY, 0L));
			ReplicationConsumer.Builder builder = ReplicationConsumer.builder()
				.jdbcUrl(url, user, null)
				.slotName(args[2])
				.publicationName(args[3])
				.tables(List.of(new TableId("public", args[4])))
				.statusInterval(Duration.ofSeconds(1))
				.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1), -1));
			Subscription subscription = switch (mode) {
				case "deferred" -> Subscription.onChange("deferred", (Change change, Acknowledgment ack) -> {
					write(out, change);
					acknowledger.schedule(ack::acknowledge, random.nextInt(30), TimeUnit.MILLISECONDS);
				});
				case "lanes" -> Subscription.onChange("lanes", (change) -> write(out, change)).withConcurrency(8);
				default -> Subscription.onChange("serial", (change) -> write(out, change));
			};
			ReplicationConsumer consumer = builder.subscribe(subscription).build();
			consumer.start();
			System.out.println("started");
			System.out.flush();
			while (System.in.read() != -1) {
				// Wait for the parent to close standard input.
			}
			consumer.stop();
			acknowledger.shutdownNow();
		}
	}

	private static void write(Writer out, Change change) throws IOException {
		Row row = change.after();
		String line = change.id() + " " + change.commitLsn() + " " + row.get("k") + " " + row.get("v") + "\n";
		synchronized (out) {
			out.write(line);
			out.flush();
		}
	}

}
