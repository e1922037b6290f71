package io.postlog.consumer;

import java.io.BufferedWriter;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.postlog.TableId;

/**
 * A consumer for {@link ConsumerCrashIntegrationTests} to run in a child JVM: it appends
 * each delivered change's id, its commit LSN and the row's key to a file, flushed before
 * the handler returns, so that a kill loses nothing the handler completed. Stops cleanly
 * when its standard input closes.
 */
final class CrashTestConsumer {

	private CrashTestConsumer() {
	}

	/**
	 * Runs the consumer.
	 * @param args JDBC URL, user, slot, publication, table, output file
	 * @throws Exception if the consumer cannot start
	 */
	public static void main(String[] args) throws Exception {
		String url = args[0];
		String user = args[1];
		try (Writer out = new BufferedWriter(
				new OutputStreamWriter(new FileOutputStream(args[5], true), StandardCharsets.UTF_8))) {
			ReplicationConsumer consumer = ReplicationConsumer.builder()
				.jdbcUrl(url, user, null)
				.slotName(args[2])
				.publicationName(args[3])
				.tables(List.of(new TableId("public", args[4])))
				.statusInterval(Duration.ofSeconds(1))
				.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1), -1))
				.changeHandler((change) -> {
					out.write(change.id() + " " + change.commitLsn() + " " + change.after().get("k") + "\n");
					out.flush();
				})
				.build();
			consumer.start();
			System.out.println("started");
			System.out.flush();
			while (System.in.read() != -1) {
				// Wait for the parent to close standard input.
			}
			consumer.stop();
		}
	}

}
